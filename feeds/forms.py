"""The web UI's forms: they parse and keep what the user typed.

Validation that matters (userid syntax, text length, password length) lives in
the services, once for the web, the API and the commands. A form only checks
that a field is there; a service's InvalidInput is put back on the field it
names with :func:`add_service_error`, so the error shows next to the input.
"""

from __future__ import annotations

from django import forms

from feeds.errors import ServiceError


def add_service_error(form: forms.Form, exc: ServiceError) -> None:
    """Show ``exc`` next to its field, or above the form when it names none;
    each of its messages (a password's validators give several) on its own."""
    field = getattr(exc, "field", None)
    for message in getattr(exc, "messages", (exc.message,)):
        form.add_error(field if field in form.fields else None, message)


NEW_PASSWORD_HELP = (
    "At least 8 characters; not a common password, not all digits, "
    "not like your username, name or email."
)


def password_field(label: str, autocomplete: str, help_text: str = "") -> forms.CharField:
    """A password input. Passwords are taken exactly as typed: stripping
    would change them."""
    return forms.CharField(
        label=label,
        strip=False,
        help_text=help_text,
        widget=forms.PasswordInput(attrs={"autocomplete": autocomplete}),
    )


class SignupForm(forms.Form):
    userid = forms.CharField(
        label="Username",
        help_text="3 to 20 letters, digits or underscores.",
        widget=forms.TextInput(attrs={"autocomplete": "username", "autocapitalize": "none"}),
    )
    name = forms.CharField(
        label="Display name", widget=forms.TextInput(attrs={"autocomplete": "name"})
    )
    email = forms.CharField(label="Email", widget=forms.EmailInput(attrs={"autocomplete": "email"}))
    password = password_field("Password", "new-password", NEW_PASSWORD_HELP)


class LoginForm(forms.Form):
    userid = forms.CharField(
        label="Username",
        widget=forms.TextInput(
            attrs={"autocomplete": "username", "autocapitalize": "none", "autofocus": True}
        ),
    )
    password = password_field("Password", "current-password")


class PasswordForm(forms.Form):
    current_password = password_field("Current password", "current-password")
    new_password = password_field("New password", "new-password", NEW_PASSWORD_HELP)


class TwitForm(forms.Form):
    # Not stripped or length-checked here: the service counts characters the
    # way it stores them (after turning CRLF into LF and trimming).
    text = forms.CharField(
        label="What's happening?",
        strip=False,
        widget=forms.Textarea(
            attrs={"rows": 3, "maxlength": 280, "placeholder": "What's happening?"}
        ),
        error_messages={"required": "Write something to post."},
    )
