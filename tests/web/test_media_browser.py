"""Images in twits in headless Chromium against a real web server with a
real worker (tests/browser.py): post a twit with two images and their alt
text from the home composer's file inputs, see them load in the stream, on
the profile and on the twit's page (decoded, at their size, with their alt
text). Screenshots of the home page with its composer open and of the twit
page, at desktop and phone widths, light and dark, go to
test-artifacts/screenshots/."""

from __future__ import annotations

from pathlib import Path

from PIL import Image, ImageDraw
from pytest_django.fixtures import Settings
from selenium.webdriver.chrome.webdriver import WebDriver
from selenium.webdriver.common.by import By

from feeds import services
from tests.browser import UI
from tests.helpers import register

from .test_pages_browser import _shoot


def _picture(path: Path, size: tuple[int, int], sky: str, sun: str) -> Path:
    image = Image.new("RGB", size, sky)
    draw = ImageDraw.Draw(image)
    w, h = size
    draw.rectangle((0, h * 2 // 3, w, h), fill="#1d4e89")
    draw.ellipse((w // 2 - h // 6, h // 3, w // 2 + h // 6, h * 2 // 3), fill=sun)
    image.save(path, "PNG")
    return path


def _loaded(browser: WebDriver) -> list[tuple[str, int, int]]:
    """(alt, natural width, natural height) of each twit image decoded on the page."""
    found = []
    for img in browser.find_elements(By.CSS_SELECTOR, ".twit-images img"):
        browser.execute_script("arguments[0].scrollIntoView()", img)
        natural = browser.execute_script(
            "return arguments[0].complete ? [arguments[0].naturalWidth, "
            "arguments[0].naturalHeight] : null",
            img,
        )
        if natural:
            found.append((str(img.get_attribute("alt")), int(natural[0]), int(natural[1])))
    return found


def test_post_a_twit_with_images_and_see_them_load(
    browser: WebDriver, live_url: str, settings: Settings, tmp_path: Path
) -> None:
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.PBKDF2PasswordHasher"]
    register("alice")
    register("bob")
    services.follow("bob", "alice")
    first = _picture(tmp_path / "sunset.png", (1200, 800), "#f4a261", "#e76f51")
    second = _picture(tmp_path / "noon.png", (600, 600), "#8ecae6", "#ffb703")
    ui = UI(browser, live_url)
    ui.log_in("alice")
    browser.find_element(By.CSS_SELECTOR, ".composer-images summary").click()
    ui.fill({"text": "Two skies over the bay", "alt1": "An orange sunset over the bay"})
    browser.find_element(By.NAME, "image1").send_keys(str(first))
    browser.find_element(By.NAME, "image2").send_keys(str(second))
    ui.fill({"alt2": "A yellow sun at noon"})
    ui.click("#compose button[type=submit]")
    assert "Your twit is posted." in ui.text()
    want = [("An orange sunset over the bay", 1200, 800), ("A yellow sun at noon", 600, 600)]
    ui.reload_until(lambda: _loaded(browser) == want, "the images in alice's home stream")
    ui.open("/u/alice")
    ui.reload_until(lambda: _loaded(browser) == want, "the images on alice's profile")
    permalink = browser.find_element(By.CSS_SELECTOR, ".twit-time").get_attribute("href")
    assert permalink
    path = permalink.removeprefix(live_url)
    ui.open(path)
    ui.reload_until(lambda: _loaded(browser) == want, "the images on the twit's page")

    def home_with_composer_open() -> None:
        ui.open("/")
        browser.find_element(By.CSS_SELECTOR, ".composer-images summary").click()

    _shoot(ui, "image-twit-home", home_with_composer_open)
    _shoot(ui, "image-twit-page", lambda: ui.open(path))

    # A follower sees them in their stream, through the fan-out.
    ui.log_out()
    ui.log_in("bob")
    ui.reload_until(lambda: _loaded(browser) == want, "the images in bob's stream")
