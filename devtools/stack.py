"""The compose stack (docker-compose.yml) under podman, on a machine that
reaches Debian's packages but no image registry: what the smoke test
(tests/deploy/test_stack.py) and a developer use to build and run it.

    python -m devtools.stack bases              # the local base images, once
    python -m devtools.stack compose up -d      # podman-compose, set up as below
    python -m devtools.stack compose down

Written here because no library does these three machine-specific steps:

1. **The engine.** Debian's podman (4.3) with the settings this kind of
   machine needs (``CONTAINERS_CONF`` pointing at :data:`CONTAINERS_CONF`,
   rather than changing ``/etc``): the ``runc`` runtime (crun refuses
   cgroups in hybrid mode) and default ulimits under the machine's hard
   limits; the CNI ``dnsname`` plugin, so services find each other by name.
   :func:`install_engine` installs the Debian packages when missing.
2. **Base images.** The Dockerfiles build on official images (python, maven,
   redis, nginx), each named by a build argument or variable. Without a
   registry, :func:`ensure_bases` makes a Debian root file system with
   ``debootstrap``, imports it, and builds a stand-in for each official image
   from Debian's packages (``devtools/containers/*.Containerfile``). The
   stand-ins trust the certificate authorities of the machine that built
   them, as its package managers need.
3. **Compose.** podman-compose (PyPI, in the dev dependencies) with the
   variables that select the stand-ins (:func:`compose_env`).

Healthchecks do not run by themselves under podman here (it schedules them
through systemd, which these machines do not run): :func:`wait_healthy`
runs a service's healthcheck until it passes.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Mapping, Sequence
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent
COMPOSE_FILE = REPO_ROOT / "docker-compose.yml"
CONTAINERFILES = Path(__file__).resolve().parent / "containers"
CONTAINERS_CONF = CONTAINERFILES / "containers.conf"

DEBIAN_IMAGE = "localhost/twitbase-debian:bookworm"
DEBIAN_MIRROR = "http://deb.debian.org/debian"
# The stand-ins: compose variable -> (local image, Containerfile's stem).
STANDINS = {
    "TWITBASE_PYTHON_IMAGE": ("localhost/twitbase-standin-python:3.11-bookworm", "python"),
    "TWITBASE_MAVEN_IMAGE": ("localhost/twitbase-standin-maven:3-jdk17", "maven"),
    "TWITBASE_REDIS_IMAGE": ("localhost/twitbase-standin-redis:7-bookworm", "redis"),
    "TWITBASE_NGINX_IMAGE": ("localhost/twitbase-standin-nginx:bookworm", "nginx"),
}
# Debian's packages the engine needs (podman pulls runc, conmon and the CNI
# plugins with it; dnsname is only recommended, so named).
ENGINE_PACKAGES = (
    "podman",
    "runc",
    "golang-github-containernetworking-plugin-dnsname",
    "debootstrap",
    "uidmap",
)


class StackError(RuntimeError):
    """A step of setting up or driving the stack failed; the message says which."""


def say(message: str) -> None:
    print(f"stack: {message}", file=sys.stderr, flush=True)


def engine_env(extra: Mapping[str, str] | None = None) -> dict[str, str]:
    """The environment every podman call here runs with."""
    return {**os.environ, "CONTAINERS_CONF": str(CONTAINERS_CONF), **(extra or {})}


def run(
    cmd: Sequence[str],
    env: Mapping[str, str],
    *,
    check: bool = True,
    capture: bool = True,
    timeout: float | None = None,
) -> subprocess.CompletedProcess[str]:
    """Run ``cmd`` in the repository with ``env``. With ``check``, a failure
    raises :class:`StackError` with the command and the end of what it printed."""
    done = subprocess.run(
        list(cmd),
        cwd=REPO_ROOT,
        env=dict(env),
        capture_output=capture,
        text=True,
        check=False,
        timeout=timeout,
    )
    if check and done.returncode != 0:
        raise StackError(
            f"{' '.join(cmd)} failed (exit {done.returncode}):\n"
            f"{(done.stdout or '')[-2000:]}\n{(done.stderr or '')[-3000:]}"
        )
    return done


def podman(*args: str, check: bool = True) -> str:
    """Run ``podman ARGS``; its standard output."""
    return run(["podman", *args], engine_env(), check=check).stdout or ""


def install_engine() -> None:
    """Install Debian's podman and what it needs here, when missing (as root)."""
    missing = [p for p in ENGINE_PACKAGES if not _installed(p)]
    if not missing:
        return
    say(f"installing {', '.join(missing)} (Debian packages)")
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    run(["apt-get", "update", "-q"], env)
    run(["apt-get", "install", "-y", "-q", "--no-install-recommends", *missing], env)


def _installed(package: str) -> bool:
    done = run(["dpkg-query", "-W", "-f", "${Status}", package], os.environ, check=False)
    return done.returncode == 0 and done.stdout.endswith("installed")


def image_exists(name: str) -> bool:
    return run(["podman", "image", "exists", name], engine_env(), check=False).returncode == 0


def ensure_debian_image() -> None:
    """``localhost/twitbase-debian:bookworm``: a minimal Debian root file
    system from debootstrap, trusting this machine's extra authorities."""
    if image_exists(DEBIAN_IMAGE):
        return
    t0 = time.monotonic()
    say(f"making {DEBIAN_IMAGE} with debootstrap (about 30 s)")
    with tempfile.TemporaryDirectory(prefix="twitbase-rootfs-") as tmp:
        root = Path(tmp) / "rootfs"
        run(
            ["debootstrap", "--variant=minbase", "--include=ca-certificates", "bookworm",
             str(root), DEBIAN_MIRROR],
            os.environ,
        )  # fmt: skip
        local_cas = sorted(Path("/usr/local/share/ca-certificates").glob("*.crt"))
        for ca in local_cas:
            shutil.copy(ca, root / "usr/local/share/ca-certificates" / ca.name)
        if local_cas:
            run(["chroot", str(root), "update-ca-certificates"], os.environ)
        for leftover in ("var/lib/apt/lists", "var/cache/apt/archives"):
            for path in (root / leftover).glob("*"):
                if path.is_file():
                    path.unlink()
        tar = subprocess.Popen(["tar", "-C", str(root), "-c", "."], stdout=subprocess.PIPE)
        imported = subprocess.run(
            ["podman", "import", "-", DEBIAN_IMAGE],
            stdin=tar.stdout,
            env=engine_env(),
            capture_output=True,
            text=True,
            check=False,
        )
        tar.wait()
        if imported.returncode != 0:
            raise StackError(f"podman import failed:\n{imported.stderr[-2000:]}")
    say(f"{DEBIAN_IMAGE} made in {time.monotonic() - t0:.0f} s")


def ensure_bases() -> dict[str, str]:
    """The engine installed, the Debian image and every stand-in built (each
    only when missing); the compose variables that select the stand-ins."""
    install_engine()
    ensure_debian_image()
    for image, stem in STANDINS.values():
        if image_exists(image):
            continue
        t0 = time.monotonic()
        say(f"building {image} from Debian's packages")
        podman(
            "build",
            "-q",
            "-f",
            str(CONTAINERFILES / f"{stem}.Containerfile"),
            "-t",
            image,
            str(CONTAINERFILES),
        )
        say(f"{image} built in {time.monotonic() - t0:.0f} s")
    return {var: image for var, (image, _) in STANDINS.items()}


def compose_env(extra: Mapping[str, str] | None = None) -> dict[str, str]:
    """The environment podman-compose runs with: the stand-ins selected."""
    return engine_env({**{var: image for var, (image, _) in STANDINS.items()}, **(extra or {})})


def podman_compose() -> str:
    """podman-compose from the same environment as this Python (the dev
    dependencies), else from PATH."""
    beside = Path(sys.executable).with_name("podman-compose")
    if beside.exists():
        return str(beside)
    found = shutil.which("podman-compose")
    if not found:
        raise StackError("podman-compose not found: it is in the dev dependencies (make install)")
    return found


def compose(
    project: str,
    *args: str,
    env: Mapping[str, str] | None = None,
    check: bool = True,
    capture: bool = True,
    timeout: float | None = None,
) -> subprocess.CompletedProcess[str]:
    """``podman-compose -p PROJECT -f docker-compose.yml ARGS``."""
    cmd = [podman_compose(), "-p", project, "-f", str(COMPOSE_FILE), *args]
    return run(cmd, compose_env(env), check=check, capture=capture, timeout=timeout)


def container(project: str, service: str) -> str:
    """The name podman-compose gives a service's (first) container."""
    return f"{project}_{service}_1"


def wait_healthy(project: str, service: str, timeout: float) -> float:
    """Run the service's healthcheck until it passes; the seconds it took.
    Raises :class:`StackError` with the container's last log lines if it
    does not pass within ``timeout``."""
    name = container(project, service)
    t0 = time.monotonic()
    while True:
        done = run(["podman", "healthcheck", "run", name], engine_env(), check=False)
        if done.returncode == 0:
            return time.monotonic() - t0
        if time.monotonic() - t0 > timeout:
            logs = podman("logs", "--tail", "40", name, check=False)
            raise StackError(
                f"{service} not healthy after {timeout:.0f} s "
                f"({(done.stdout + done.stderr).strip()}); its last log lines:\n{logs}"
            )
        time.sleep(1)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m devtools.stack",
        description="Build and run docker-compose.yml under podman on this machine.",
    )
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("bases", help="install podman and build the local base images")
    p_compose = sub.add_parser("compose", help="podman-compose ARGS, with the stand-ins")
    p_compose.add_argument("-p", "--project", default="twitbase")
    p_compose.add_argument("args", nargs=argparse.REMAINDER)
    args = parser.parse_args(argv)
    try:
        ensure_bases()
        if args.command == "compose":
            return compose(args.project, *args.args, check=False, capture=False).returncode
    except StackError as exc:
        say(f"error: {exc}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
