"""The web UI's forms: they parse and keep what the user typed.

Validation that matters (userid syntax, text length, password length) lives in
the services, once for the web, the API and the commands. A form only checks
that a field is there; a service's InvalidInput is put back on the field it
names with :func:`add_service_error`, so the error shows next to the input.
The sign-up form asks the services for every problem at once
(:func:`feeds.services.signup_problems`), so that one submit shows them all.

The first field with an error gets ``autofocus``: the browser puts the cursor
there when the page loads, with no script.
"""

from __future__ import annotations

from typing import Any

from django import forms

from feeds import services
from feeds.errors import ServiceError
from feeds.services import accounts, avatars


def add_service_error(form: forms.Form, exc: ServiceError) -> None:
    """Show ``exc`` next to its field, or above the form when it names none;
    each of its messages (a password's validators give several) on its own."""
    field = getattr(exc, "field", None)
    for message in getattr(exc, "messages", (exc.message,)):
        form.add_error(field if field in form.fields else None, message)


NEW_PASSWORD_HELP = (
    "At least 8 characters; not a common password, not all digits, "
    "not like your userid, name or email."
)


class SiteForm(forms.Form):
    """A form whose first field with an error has ``autofocus``; with no
    error, the field named by ``focus`` (None: no field, the page decides);
    with only an error about the whole form (a log-in refused), the one named
    by ``focus_on_form_error``, else ``focus``.

    Recomputed whenever an error is added, by validation or by a view
    putting a service's error back (:func:`add_service_error`), so the focus
    always lands on the first field the user has to fix.
    """

    focus: str | None = None
    focus_on_form_error: str | None = None

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._place_focus()

    def add_error(self, field: str | None, error: Any) -> None:
        super().add_error(field, error)
        self._place_focus()

    def _place_focus(self) -> None:
        # _errors, not errors: reading .errors would run the validation.
        errors: dict[str, Any] = getattr(self, "_errors", None) or {}
        bad = [name for name in self.fields if name in errors]
        if bad:
            target: str | None = bad[0]
        elif errors and self.focus_on_form_error:
            target = self.focus_on_form_error
        else:
            target = self.focus
        for name, field in self.fields.items():
            if name == target:
                field.widget.attrs["autofocus"] = True
            else:
                field.widget.attrs.pop("autofocus", None)


def password_field(label: str, autocomplete: str, help_text: str = "") -> forms.CharField:
    """A password input. Passwords are taken exactly as typed: stripping
    would change them."""
    return forms.CharField(
        label=label,
        strip=False,
        help_text=help_text,
        widget=forms.PasswordInput(attrs={"autocomplete": autocomplete}),
    )


# "Userid" is the one word for it everywhere: these labels, the services'
# messages, the API's field and the console. ("username" below is the HTML
# autocomplete token that password managers look for, not a label.)
def userid_field(help_text: str = "") -> forms.CharField:
    return forms.CharField(
        label="Userid",
        help_text=help_text,
        widget=forms.TextInput(
            attrs={"autocomplete": "username", "autocapitalize": "none", "spellcheck": "false"}
        ),
    )


class SignupForm(SiteForm):
    focus = "userid"

    userid = userid_field("3 to 20 letters, digits or underscores.")
    name = forms.CharField(
        label="Display name", widget=forms.TextInput(attrs={"autocomplete": "name"})
    )
    email = forms.CharField(label="Email", widget=forms.EmailInput(attrs={"autocomplete": "email"}))
    password = password_field("Password", "new-password", NEW_PASSWORD_HELP)

    def clean(self) -> dict[str, Any]:
        """Every field's problem at once: the services' checks run on each
        field, not only up to the first refusal. A field already said to be
        missing keeps that one message."""
        data = super().clean() or {}
        typed = [data.get(name, "") for name in ("userid", "name", "email", "password")]
        for problem in services.signup_problems(*typed):
            if problem.field not in self.errors:
                add_service_error(self, problem)
        return data


class LoginForm(SiteForm):
    focus = "userid"
    # A refused log-in keeps the userid; the password is what to type again.
    focus_on_form_error = "password"

    userid = userid_field()
    password = password_field("Password", "current-password")


class PasswordForm(SiteForm):
    current_password = password_field("Current password", "current-password")
    new_password = password_field("New password", "new-password", NEW_PASSWORD_HELP)


class TwitForm(SiteForm):
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


class ImageTwitForm(TwitForm):
    """The home page's composer: a twit with up to four images, each with its
    alt text (checked by the service, feeds/services/media.py: the form
    only carries them)."""

    SLOTS = (1, 2, 3, 4)

    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)
        for n in self.SLOTS:
            self.fields[f"image{n}"] = forms.FileField(
                label=f"Image {n}",
                required=False,
                widget=forms.ClearableFileInput(attrs={"accept": "image/*"}),
            )
            self.fields[f"alt{n}"] = forms.CharField(
                label=f"Alt text for image {n}",
                required=False,
                strip=False,
                widget=forms.TextInput(
                    attrs={
                        "maxlength": 1000,
                        "placeholder": "Alt text: describe it",
                    }
                ),
            )

    def image_slots(self) -> list[tuple[forms.BoundField, forms.BoundField]]:
        """(file field, alt field) of each slot, for the template."""
        return [(self[f"image{n}"], self[f"alt{n}"]) for n in self.SLOTS]

    def uploads(self) -> list[tuple[int, bytes, str]]:
        """(slot, file's bytes, alt text) of each slot given a file, in order."""
        found = []
        for n in self.SLOTS:
            upload = self.cleaned_data.get(f"image{n}")
            if upload:
                found.append((n, upload.read(), self.cleaned_data.get(f"alt{n}") or ""))
        return found


class ReplyForm(TwitForm):
    """A twit that replies to the one on the page (its id is in the URL)."""

    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)
        self.fields["text"].label = "Your reply"
        self.fields["text"].widget.attrs["placeholder"] = "Post your reply"
        self.fields["text"].widget.attrs["rows"] = 2


# -- avatars and account deletion (account branch) ----------------------------------------


class ProfileForm(SiteForm):
    """The display name and the bio, as the profile shows them; their checks
    are the service's (:func:`feeds.services.update_profile`), as on the API."""

    name = forms.CharField(
        label="Display name",
        max_length=accounts.NAME_MAX,
        widget=forms.TextInput(attrs={"autocomplete": "name"}),
        error_messages={"required": "Enter a display name."},
    )
    bio = forms.CharField(
        label="Bio",
        required=False,
        max_length=accounts.BIO_MAX,
        help_text=f"Up to {accounts.BIO_MAX} characters, shown on your profile.",
        widget=forms.Textarea(attrs={"rows": 3}),
    )


# The limit the service enforces (feeds.services.avatars), in its own words.
AVATAR_LIMIT = f"{avatars.MAX_BYTES // (1024 * 1024)} MB"


def avatar_size_error(size: int) -> str:
    """What the avatar field says of a file of ``size`` bytes over the limit."""
    return (
        f"An avatar is at most {AVATAR_LIMIT}; this file is {size / (1024 * 1024):.1f} MB. "
        "Choose a smaller image."
    )


class AvatarForm(SiteForm):
    """An avatar upload: the file's checks (format, size, pixels) are the service's."""

    avatar = forms.FileField(
        label="Avatar image",
        help_text=(f"PNG, JPEG, WebP or GIF, at most {AVATAR_LIMIT}; shown as a 256 px square."),
        widget=forms.ClearableFileInput(
            attrs={"accept": "image/png,image/jpeg,image/webp,image/gif"}
        ),
        error_messages={"required": "Choose an image file to upload."},
    )


class DeleteAccountForm(SiteForm):
    focus = "password"

    password = password_field("Your password", "current-password")


class MessageForm(SiteForm):
    """A direct message; as a twit's text, checked by the service."""

    text = forms.CharField(
        label="Write a message",
        strip=False,
        widget=forms.Textarea(
            attrs={"rows": 2, "maxlength": 280, "placeholder": "Write a message"}
        ),
        error_messages={"required": "Write something to send."},
    )


class ListForm(SiteForm):
    """A new list: its name and description are checked by the service
    (services.lists), which says why one is refused."""

    focus = "name"

    name = forms.CharField(
        label="Name", strip=False, widget=forms.TextInput(attrs={"maxlength": 50})
    )
    description = forms.CharField(
        label="Description",
        required=False,
        strip=False,
        help_text="Optional. Lists are public: anyone can see a list and its members.",
        widget=forms.TextInput(attrs={"maxlength": 160}),
    )


class QuoteForm(TwitForm):
    """A twit that quotes the one on the page (its id is in the URL)."""

    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)
        self.fields["text"].label = "Your quote"
        self.fields["text"].widget.attrs["placeholder"] = "Add a comment"
