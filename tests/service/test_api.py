"""The HTTP API on a real server: formats, options, errors, metrics and the OpenAPI description."""

from __future__ import annotations

import gzip
import json
import socket
import time
import zlib

import httpx
import pytest
from conftest import ARTICLE, metric_counts

import grist
from grist.io.content_encoding import ContentDecoder
from grist.service.options import LIBRARY_OPTIONS, supported_options

STORY = "she knew that the mill would be there for her"


def post_html(service: str, body: bytes | str, query: str = "", **headers: str) -> httpx.Response:
    return httpx.post(f"{service}/extract{query}", content=body,
                      headers={"content-type": "text/html", **headers}, timeout=30)


def post_json(service: str, payload: dict, path: str = "/extract") -> httpx.Response:
    return httpx.post(service + path, json=payload, timeout=30)


@pytest.mark.parametrize("method", ["auto", "justext"])
def test_raw_html_gives_what_the_library_gives(service: str, method: str) -> None:
    response = post_html(service, ARTICLE.encode(), f"?method={method}")
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/plain")
    expected = grist.extract(ARTICLE.encode(), method=method)
    assert response.text == expected.text and STORY in response.text
    assert response.headers["x-grist-method"] == method
    assert int(response.headers["x-grist-kept"]) == len(expected.content_blocks)
    assert int(response.headers["x-grist-blocks"]) == len(expected.blocks)


def test_http_charset_of_the_request_decodes_the_body(service: str) -> None:
    page = "<html><body><p>" + "Crème brûlée au café, servie chaque matin. " * 8 + "</p></body></html>"
    response = post_html(service, page.encode("latin-1"), **{"content-type": "text/html; charset=iso-8859-1"})
    assert response.status_code == 200 and "Crème brûlée au café" in response.text


def test_json_format_carries_every_block_with_its_decision(service: str) -> None:
    response = post_json(service, {"html": ARTICLE, "format": "json", "method": "justext",
                                   "url": "https://example.org/rivers"})
    assert response.status_code == 200
    data = response.json()
    assert data["url"] == "https://example.org/rivers" and data["method"] == "justext"
    labels = {b["label"] for b in data["blocks"]}
    assert labels == {"content", "boilerplate"}
    assert all(b["reason"] and "decided_by" not in b for b in data["blocks"])  # all the method's
    nav = next(b for b in data["blocks"] if b["text"] == "About us")
    assert nav["label"] == "boilerplate"


def test_query_options_apply_to_raw_bodies(service: str) -> None:
    response = post_html(service, ARTICLE, "?format=markdown&method=lineblock")
    assert response.status_code == 200 and response.headers["content-type"].startswith("text/markdown")
    assert response.headers["x-grist-method"] == "lineblock" and "# Rivers of the north" in response.text


def test_html_output_is_sanitised(service: str) -> None:
    response = post_json(service, {"html": ARTICLE, "format": "html"})
    assert response.status_code == 200 and response.headers["content-type"].startswith("text/html")
    lowered = response.text.lower()
    assert STORY in response.text
    for bad in ("<script", "onerror", "onload", "javascript:", "<img"):
        assert bad not in lowered


def test_html_output_is_the_page_the_library_renders(service: str) -> None:
    page = ('<html lang="en"><head><title>Mill</title><meta name="author" content="Mira Keller">'
            '</head><body>' + ARTICLE.split("<body", 1)[1].split(">", 1)[1])
    url = "https://example.org/mill?a=1&b=2"
    response = post_json(service, {"html": page, "format": "html", "url": url})
    expected = grist.extract(page, url=url).render("html")
    assert response.text == expected  # the sanitiser keeps the page's shape and metadata
    assert '<html lang="en">' in response.text and "</head>\n<body>" in response.text
    assert '<meta name="author" content="Mira Keller">' in response.text
    assert '<link rel="canonical" href="https://example.org/mill?a=1&amp;b=2">' in response.text


def test_methods_lists_methods_formats_and_options(service: str) -> None:
    data = httpx.get(service + "/methods").json()
    names = [m["name"] for m in data["methods"]]
    assert {"auto", "justext", "lineblock", "tagscore", "tree"} <= set(names)
    assert data["default"] == "auto" and next(m for m in data["methods"] if m["name"] == "auto")["default"]
    assert "paper" in next(m for m in data["methods"] if m["name"] == "lineblock")["variants"]
    assert set(data["formats"]) == {"text", "markdown", "json", "html", "xml", "csv"}
    assert sorted(data["options"]["supported"] + data["options"]["not_yet"]) == sorted(LIBRARY_OPTIONS)


@pytest.mark.parametrize("option", list(LIBRARY_OPTIONS))
def test_library_options_pass_through_or_are_refused_clearly(service: str, option: str) -> None:
    response = post_json(service, {"html": ARTICLE, option: True})
    if option in supported_options():
        assert response.status_code == 200
    else:
        assert response.status_code == 422
        assert response.json()["reason"] == "unsupported-option"
        assert f"option {option!r} is not supported by this grist yet" in response.json()["error"]


@pytest.mark.parametrize(("payload", "status", "reason", "message"), [
    ({"html": ARTICLE, "method": "nope"}, 422, "invalid-request", "unknown method 'nope'; choose one of"),
    ({"html": ARTICLE, "format": "pdf"}, 422, "invalid-request", "unknown format 'pdf'"),
    ({"html": ARTICLE, "colour": "red"}, 422, "invalid-request", "colour: Extra inputs are not permitted"),
    ({"method": "auto"}, 422, "invalid-request", "give the page as html, or a url to fetch"),
    ({"url": "file:///etc/passwd"}, 422, "invalid-request", "url must be an absolute http"),
    ({"url": "http://exa\x00mple.com/"}, 422, "invalid-request", "url is not valid: Invalid non-printable"),
    ({"url": "http://\u2603.example/"}, 422, "invalid-request", "url is not valid: Invalid IDNA hostname"),
    ({"url": "http://example.com:99999/x"}, 422, "invalid-request", "url is not valid: Port out of"),
    ({"html": ""}, 422, "empty-input", "the page is empty"),
    ({"html": "<html><head><title>t</title></head><body> </body></html>"}, 422, "no-text",
     "the page has no visible text"),
    ({"html": "<div>" * 5000 + "deep"}, 422, "limit-exceeded", "nests elements more than"),
    ({"html": ARTICLE, "site": "rivers"}, 404, "unknown-site", "no site model named 'rivers'"),
    ({"html": ARTICLE, "site": "bad name!"}, 422, "invalid-request", "a site name is letters"),
])
def test_errors_are_json_with_a_status_and_a_reason(service: str, payload: dict, status: int,
                                                     reason: str, message: str) -> None:
    response = post_json(service, payload)
    assert response.status_code == status
    body = response.json()
    assert body["reason"] == reason and message in body["error"]
    assert "Traceback" not in response.text


@pytest.mark.parametrize("path", ["/extract", "/inspect", "/sites/x/update"])
def test_a_host_name_that_does_not_decode_is_a_422(service: str, path: str) -> None:
    with httpx.Client(base_url=service, timeout=30) as client:
        for _ in range(3):
            response = client.post(path, json={"url": "http://xn--a.example/"})
            assert response.status_code == 422 and response.json()["reason"] == "invalid-request"
            assert "the URL's host name is not valid: " in response.json()["error"]
            assert client.get("/health").status_code == 200


def test_binary_bodies_and_bad_requests(service: str) -> None:
    png = post_html(service, b"\x89PNG\r\n\x1a\n" + bytes(200), **{"content-type": "application/octet-stream"})
    assert png.status_code == 422 and "not an HTML page: it looks like a PNG image" in png.json()["error"]
    empty = post_html(service, b"")
    assert empty.status_code == 422 and empty.json()["reason"] == "empty-input"
    broken = httpx.post(service + "/extract", content=b"{not json", headers={"content-type": "application/json"})
    assert broken.status_code == 400 and broken.json()["reason"] == "invalid-json"
    form = httpx.post(service + "/extract", content=b"a=b", headers={"content-type": "application/x-www-form-urlencoded"})
    assert form.status_code == 415 and form.json()["reason"] == "unsupported-media-type"


def test_body_cap(service: str) -> None:
    big = b"<p>" + b"x" * 1_100_000 + b"</p>"
    response = post_html(service, big)
    assert response.status_code == 413 and "larger than the limit of 1000000 bytes" in response.json()["error"]

    def chunks():  # no Content-Length: the cap holds while streaming
        for _ in range(12):
            yield b"<p>" + b"y" * 100_000 + b"</p>"

    streamed = httpx.post(service + "/extract", content=chunks(), headers={"content-type": "text/html"})
    assert streamed.status_code == 413


def test_compressed_bodies_are_read_within_the_cap(service: str) -> None:
    plain = post_html(service, ARTICLE.encode())
    for encoding, packed in (("gzip", gzip.compress(ARTICLE.encode())),
                             ("deflate", zlib.compress(ARTICLE.encode()))):
        response = post_html(service, packed, **{"content-encoding": encoding})
        assert response.status_code == 200 and response.text == plain.text
    as_json = httpx.post(service + "/extract", content=gzip.compress(json.dumps(
        {"html": ARTICLE, "format": "markdown"}).encode()), headers={
        "content-type": "application/json", "content-encoding": "gzip"}, timeout=30)
    assert as_json.status_code == 200 and STORY in as_json.text
    bomb = post_html(service, gzip.compress(b"<p>" + b"a " * 2_000_000 + b"</p>"),
                     **{"content-encoding": "gzip"})
    assert bomb.status_code == 413 and bomb.json()["reason"] == "too-large"
    packed = gzip.compress(ARTICLE.encode())
    for body, encoding, status, reason in (
            (packed[:5], "gzip", 400, "invalid-body"),
            (packed[:10], "gzip", 400, "invalid-body"),
            (packed[: len(packed) // 2], "gzip", 400, "invalid-body"),
            (ARTICLE.encode(), "gzip", 400, "invalid-body")):
        response = post_html(service, body, **{"content-encoding": encoding})
        assert (response.status_code, response.json()["reason"]) == (status, reason)
    assert "cut off" in post_html(service, packed[:5], **{"content-encoding": "gzip"}).text


def test_the_codings_read_are_those_grist_undoes(service: str) -> None:
    """grist's ContentDecoder decides which codings are known, and stops each piece's output at
    the size cap: br (a few hundred bytes of which can become hundreds of MiB) and stacked
    codings are read within it; an unknown coding is a 415."""
    brotli = pytest.importorskip("brotli")
    assert ContentDecoder("br").unknown == [] and ContentDecoder("zstd").unknown == ["zstd"]
    plain = post_html(service, ARTICLE.encode())
    twice = gzip.compress(gzip.compress(ARTICLE.encode()))
    for body, encoding in ((gzip.compress(ARTICLE.encode()), "x-gzip"),
                           (gzip.compress(ARTICLE.encode()), "identity, gzip"),
                           (brotli.compress(ARTICLE.encode()), "br"), (twice, "gzip, gzip")):
        response = post_html(service, body, **{"content-encoding": encoding})
        assert response.status_code == 200 and response.text == plain.text
    for encoding in ("zstd", "gzip, zstd"):
        response = post_html(service, ARTICLE.encode(), **{"content-encoding": encoding})
        assert (response.status_code, response.json()["reason"]) == (415,
                                                                     "unsupported-media-type")
        assert "is not one grist undoes (gzip, x-gzip, deflate, br)" in response.text
    bombs = (brotli.compress(b"<p>" + b"a " * 50_000_000, quality=1),
             gzip.compress(gzip.compress(b"<p>" + b"a " * 5_000_000)))
    for body, encoding in zip(bombs, ("br", "gzip, gzip"), strict=True):
        response = post_html(service, body, **{"content-encoding": encoding})
        assert (response.status_code, response.json()["reason"]) == (413, "too-large")


def test_every_gzip_member_of_a_body_is_read(service: str) -> None:
    head, tail = ARTICLE.split("<p>", 1)
    plain = post_html(service, ARTICLE.encode())
    members = gzip.compress(head.encode()) + gzip.compress(("<p>" + tail).encode())
    response = post_html(service, members, **{"content-encoding": "gzip"})
    assert response.status_code == 200 and response.text == plain.text and STORY in plain.text
    trailed = post_html(service, gzip.compress(ARTICLE.encode()) + b"junk",
                        **{"content-encoding": "gzip"})  # ignored, as browsers do
    assert trailed.status_code == 200 and trailed.text == plain.text


def test_json_nested_past_the_parser_is_a_400(service: str) -> None:
    deep = httpx.post(service + "/extract", content=b"[" * 100_000 + b"]" * 100_000,
                      headers={"content-type": "application/json"}, timeout=30)
    assert deep.status_code == 400 and deep.json()["reason"] == "invalid-json"
    assert "nests arrays or objects deeper" in deep.json()["error"]


def test_time_budget_gives_504_with_the_reason(service: str) -> None:
    page = "<html><body>" + "".join(f"<div><p>word {i} and more words.</p><a href=/{i}>x</a></div>"
                                    for i in range(3000)) + "</body></html>"
    response = post_json(service, {"html": page, "time_budget": 0.001})
    assert response.status_code == 504
    assert response.json()["reason"] == "timeout" and "time budget" in response.json()["error"]
    assert post_json(service, {"html": ARTICLE}).status_code == 200  # the service goes on


def test_health_metrics_and_openapi(service: str) -> None:
    health = httpx.get(service + "/health").json()
    assert health["status"] == "ok" and health["workers"] == 2
    post_json(service, {"html": ARTICLE, "method": "nope"})
    post_html(service, ARTICLE)
    metrics = httpx.get(service + "/metrics")
    assert metrics.headers["content-type"].startswith("text/plain")
    text = metrics.text
    assert 'grist_http_requests_total{endpoint="/extract",method="POST",status="200"}' in text
    assert 'grist_errors_total{reason="invalid-request"}' in text
    assert 'grist_http_request_duration_seconds_bucket{endpoint="/extract",le="0.25"}' in text
    assert "grist_pages_in_flight 0.0" in text and "grist_workers_busy" in text
    spec = httpx.get(service + "/openapi.json").json()
    httpx.get(service + "/docs")
    httpx.head(service + "/openapi.json")
    text = httpx.get(service + "/metrics").text
    for endpoint, method in (("/openapi.json", "GET"), ("/docs", "GET"), ("/openapi.json", "HEAD")):
        assert f'grist_http_requests_total{{endpoint="{endpoint}",method="{method}",status="200"}}' in text
    assert {"/extract", "/methods", "/health", "/metrics", "/inspect", "/sites/{name}/update"} <= set(spec["paths"])
    content = spec["paths"]["/extract"]["post"]["requestBody"]["content"]
    assert {"application/json", "text/html"} <= set(content)
    assert "with_title" in json.dumps(content["application/json"]["schema"])


def test_unknown_endpoints_and_methods_answer_in_the_same_shape(service: str) -> None:
    missing = httpx.get(service + "/nothing-here")
    assert missing.status_code == 404
    assert missing.json() == {"error": "no endpoint /nothing-here; see /openapi.json", "reason": "not-found"}
    wrong = httpx.get(service + "/extract")
    assert wrong.status_code == 405 and wrong.json()["reason"] == "method-not-allowed"
    assert "allow" in wrong.headers


def test_output_options_change_what_comes_back(service: str) -> None:
    page = ARTICLE.replace("<title>", '<meta name="author" content="Ann Smith"><title>').replace(
        "the train", 'the <a href="/trains">train</a>', 1)
    common = {"html": page, "url": "https://atlas.example/rivers", "method": "justext",
              "format": "markdown"}
    plain = post_json(service, common)
    linked = post_json(service, {**common, "links": True, "metadata": True})
    assert plain.status_code == linked.status_code == 200
    assert "[train]" not in plain.text and "the train at the end" in plain.text
    assert "[train](https://atlas.example/trains)" in linked.text
    assert linked.text.startswith("---\n") and 'author: "Ann Smith"' in linked.text
    compact = post_json(service, {**common, "format": "json"}).json()
    full = post_json(service, {**common, "format": "json", "explain": True}).json()
    assert "features" not in compact["blocks"][0] and "tag" not in compact["blocks"][0]
    assert "tag" in full["blocks"][0] and "path" in full["blocks"][0]


def test_with_title_puts_the_headline_into_the_text(service: str) -> None:
    body = post_json(service, {"html": ARTICLE, "method": "auto"})
    titled = post_json(service, {"html": ARTICLE, "method": "auto", "with_title": True})
    assert body.status_code == titled.status_code == 200
    assert "Rivers of the north" not in body.text and "the mill" in body.text
    assert titled.text.startswith("Rivers of the north") and "the mill" in titled.text


def test_a_client_that_leaves_mid_body_is_not_an_internal_error(service: str) -> None:
    errors = 'grist_errors_total{reason="%s"}'
    extract = 'grist_http_requests_total{endpoint="/extract",method="POST",status="%s"}'
    before = metric_counts(service)
    port = int(service.rsplit(":", 1)[1])
    with socket.create_connection(("127.0.0.1", port)) as sock:
        sock.sendall(b"POST /extract HTTP/1.1\r\nHost: x\r\nContent-Type: text/html\r\n"
                     b"Content-Length: 1000\r\n\r\n<p>hello</p>")
        time.sleep(0.3)
    for _ in range(100):
        after = metric_counts(service)
        if after.get(errors % "client-disconnected", 0) > before.get(errors % "client-disconnected", 0):
            break
        time.sleep(0.05)
    assert after[errors % "client-disconnected"] == before.get(errors % "client-disconnected", 0) + 1
    assert after[extract % "499"] == before.get(extract % "499", 0) + 1
    assert after.get(errors % "internal-error", 0) == before.get(errors % "internal-error", 0)
    assert after.get(extract % "500", 0) == before.get(extract % "500", 0)
