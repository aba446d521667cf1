"""``grist inspect`` and ``grist serve`` as a user runs them (real subprocesses on 127.0.0.1)."""

from __future__ import annotations

import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import httpx
from conftest import ARTICLE

from grist.cli import main


def _grist(*args: str) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "grist", *args], stderr=subprocess.PIPE,
                            text=True)


def _stop(process: subprocess.Popen) -> str:
    process.send_signal(signal.SIGINT)
    try:
        _, err = process.communicate(timeout=20)
    except subprocess.TimeoutExpired:
        process.kill()
        _, err = process.communicate()
    return err


def _health(port: int) -> dict:
    """The service's /health once it answers (it is starting in another process)."""
    for _ in range(200):
        try:
            return httpx.get(f"http://127.0.0.1:{port}/health").json()
        except httpx.HTTPError:
            time.sleep(0.1)
    raise AssertionError(f"nothing answers on port {port}")


def test_inspect_opens_the_page_in_a_local_inspector(tmp_path: Path) -> None:
    page = tmp_path / "rivers.html"
    page.write_text(ARTICLE, encoding="utf-8")
    process = _grist("inspect", str(page), "--no-browser", "--method", "justext", "--url",
                     "https://rivers.example/a")
    try:
        assert process.stderr is not None
        line = process.stderr.readline()
        address = re.search(r"inspector at (http://127\.0\.0\.1:\d+/inspect\?preload=(\S+)&method=justext)", line)
        assert address, line
        base, token = address.group(1).split("/inspect")[0], address.group(2)
        assert "grist inspector" in httpx.get(address.group(1)).text
        preloaded = httpx.get(f"{base}/inspect/preload/{token}").json()
        assert preloaded == {"html": ARTICLE, "url": "https://rivers.example/a"}
        assert httpx.get(f"{base}/inspect/preload/other").status_code == 404
    finally:
        _stop(process)


def test_serve_starts_and_stops_cleanly() -> None:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    process = _grist("serve", "--port", str(port), "--workers", "1", "--log-level", "warning")
    try:
        assert _health(port)["workers"] == 1
    finally:
        err = _stop(process)
    assert process.returncode == 0 and "Traceback" not in err


def test_bad_settings_are_usage_errors(capsys, tmp_path: Path) -> None:
    assert main(["serve", "--allow-network", "not-a-network"]) == 1
    assert "--allow-network: not an IP address or network: 'not-a-network'" in capsys.readouterr().err
    assert main(["serve", "--sites-dir", "/tmp/x", "--site-model", "no.such:Model"]) == 1
    assert "site model class 'no.such:Model' cannot be imported" in capsys.readouterr().err
    assert main(["inspect", "/no/such/page.html", "--no-browser"]) == 1
    assert "No such file or directory" in capsys.readouterr().err
    (tmp_path / "site").mkdir()
    (tmp_path / "site" / "a.html").write_text(ARTICLE, encoding="utf-8")
    assert main(["inspect", str(tmp_path / "site"), "--no-browser"]) == 1  # a folder
    assert f"{tmp_path / 'site'} is a folder; grist inspect shows one page" in (
        capsys.readouterr().err)
    (tmp_path / "taken").write_text("a file where the site folder would go")
    assert main(["serve", "--sites-dir", str(tmp_path / "taken" / "sites")]) == 1
    assert f"cannot use --sites-dir {tmp_path / 'taken' / 'sites'}" in capsys.readouterr().err


def test_a_port_that_cannot_be_listened_on_is_said_before_anything_starts(
        capsys, tmp_path: Path) -> None:
    """``grist serve`` announced "serving on ..." and started its workers, then uvicorn failed
    to bind and exited with status 3; ``grist inspect --port`` on a taken port returned 0."""
    import socket

    page = tmp_path / "rivers.html"
    page.write_text(ARTICLE, encoding="utf-8")
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = str(taken.getsockname()[1])
        for command in (["serve", "--port", port], ["inspect", str(page), "--no-browser",
                                                     "--port", port]):
            assert main(command) == 1
            err = capsys.readouterr().err
            assert err == (f"grist: error: cannot listen on 127.0.0.1:{port}: Address already in "
                           "use (another program listens there: choose another --port)\n")
    assert main(["serve", "--host", "no-such-host.invalid"]) == 1
    assert "cannot listen on no-such-host.invalid: the name does not resolve" in (
        capsys.readouterr().err)


def test_serve_on_port_0_names_the_port_it_got() -> None:
    process = _grist("serve", "--port", "0", "--workers", "1", "--log-level", "warning")
    try:
        assert process.stderr is not None
        line = process.stderr.readline()
        found = re.search(r"serving on http://127\.0\.0\.1:(\d+) ", line)
        assert found and found.group(1) != "0", line
        assert _health(int(found.group(1)))["workers"] == 1
    finally:
        err = _stop(process)
    assert process.returncode == 0 and "Traceback" not in err
