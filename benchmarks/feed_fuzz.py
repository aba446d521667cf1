"""Feed the stream's feed parser damaged RSS, Atom and JSON Feed documents from a seed.

    python benchmarks/feed_fuzz.py --seed 1 --runs 3000

Each run takes one of three small feeds, applies one to four random damages (a flipped bit, a
cut, a deletion, a repeated stretch, an inserted fragment such as ``&#xFFFFFFFF;``, ``9999``, an
open ``<item>`` or ``:99999``) and parses it with ``grist.stream.feeds.parse_feed`` under a
random content type. A run passes when it gives entries whose fields have the documented types
(and a ``ttl`` of at most a day) or raises ``FeedError``; anything else is a crash, counted by
exception and message, its input written to ``--out``. The exit status is 1 on any crash.
"""

from __future__ import annotations

import argparse
import collections
import json
import random
import sys
import time
from pathlib import Path

from grist.errors import FeedError
from grist.stream.feeds import MAX_TTL, parse_feed

RSS = b"""<?xml version="1.0" encoding="utf-8"?><rss version="2.0"
xmlns:content="http://purl.org/rss/1.0/modules/content/"><channel><title>News &amp; more</title>
<ttl>45</ttl><link>https://n.example/</link>
<item><title>One</title><link>https://n.example/a/1.html</link><description>First &lt;b&gt;story
&lt;/b&gt;</description><pubDate>Tue, 07 Jan 2020 10:00:00 GMT</pubDate><guid>1</guid></item>
<item><title>Two</title><link>/a/2.html</link><pubDate>Wed, 08 Jan 2020 10:00:00 +0100</pubDate>
<content:encoded><![CDATA[<p>x</p>]]></content:encoded></item></channel></rss>"""
ATOM = b"""<?xml version="1.0"?><feed xmlns="http://www.w3.org/2005/Atom"><title>A</title>
<entry><title type="html">T &amp;lt;i&amp;gt;</title><link rel="alternate" href="https://n.example/b/1"/>
<updated>2020-01-08T00:00:00Z</updated><summary>s</summary></entry><entry><link href="b/2"/>
<published>2020-02-30T00:00:00+25:00</published></entry></feed>"""
JSON_FEED = json.dumps({"version": "https://jsonfeed.org/version/1.1", "title": "J", "items": [
    {"id": "1", "url": "https://n.example/j/1", "title": "J1",
     "date_published": "2020-01-01T00:00:00Z"},
    {"id": "2", "external_url": "j/2", "content_text": "t",
     "date_modified": "2020-01-02T00:00:00+02:00"}]}).encode()
FRAGMENTS = [b"<", b">", b"&", b"&#xFFFFFFFF;", b"&#0;", b"]]>", b"<![CDATA[", b"\x00", b"\xff\xfe",
             b"<item>", b"</item>", b"<entry>", b"<pubDate>", b"9999", b"-1400", b"<ttl>", b"\xc3",
             b"{", b"}", b"[", b"]", b'"', b"null", b"1e999", b"&e;", b"http://[", b":99999",
             b"<!DOCTYPE x [<!ENTITY e SYSTEM 'file:///etc/passwd'>]>", b"<link>", b"</link>",
             b"<updated>", b"+99:99", b"\\u0000", b"\\ud800", b"&#xD800;", b"\xe2\x80\xae"]
CONTENT_TYPES = ["application/rss+xml", "text/html", "application/json", ""]


def damage(rng: random.Random, data: bytes) -> bytes:
    out = bytearray(data)
    for _ in range(rng.randint(1, 4)):
        kind, at = rng.choice(["flip", "cut", "insert", "repeat", "delete"]), rng.randrange(len(out) or 1)
        if kind == "flip" and out:
            out[at] ^= 1 << rng.randrange(8)
        elif kind == "cut":
            del out[at:]
        elif kind == "insert":
            out[at:at] = rng.choice(FRAGMENTS) * rng.choice([1, 1, 3, 50])
        elif kind == "repeat":
            out[at:at] = out[at:at + rng.randint(1, 200)] * rng.randint(1, 20)
        else:
            del out[at:at + rng.randint(1, 50)]
    return bytes(out)


def well_formed(feed: object) -> bool:
    entries, ttl = feed.entries, feed.ttl  # type: ignore[attr-defined]
    fields_ok = all((isinstance(e.url, str) or e.problem)  # (an item without a page says why)
                    and all(v is None or isinstance(v, str) for v in (e.title, e.description, e.date))
                    for e in entries)
    return fields_ok and (ttl is None or 0 <= ttl <= MAX_TTL) and all(e.identity() for e in entries)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--runs", type=int, default=3000)
    parser.add_argument("--out", type=Path, default=Path("feed-fuzz-crashes"),
                        help="folder for the inputs that crashed")
    args = parser.parse_args()
    rng = random.Random(args.seed)
    outcomes: collections.Counter[str] = collections.Counter()
    crashes: collections.Counter[str] = collections.Counter()
    slowest = 0.0
    for run in range(args.runs):
        data = damage(rng, rng.choice([RSS, ATOM, JSON_FEED]))
        started = time.process_time()
        try:
            feed = parse_feed(data, "https://n.example/feed", {"content-type": rng.choice(CONTENT_TYPES)})
            outcomes["entries" if well_formed(feed) else "malformed"] += 1
        except FeedError:
            outcomes["feed error"] += 1
        except Exception as exc:  # noqa: BLE001 - what this script counts
            key = f"{type(exc).__name__}: {str(exc)[:80]}"
            if not crashes[key]:
                args.out.mkdir(parents=True, exist_ok=True)
                (args.out / f"feed_{args.seed}_{run}.bin").write_bytes(data)
            crashes[key] += 1
        slowest = max(slowest, time.process_time() - started)
    print(f"seed {args.seed}, {args.runs} runs: " + ", ".join(f"{k} {v}" for k, v in
          sorted(outcomes.items())) + f", crashes {sum(crashes.values())}; slowest {slowest:.2f} s")
    for key, count in crashes.most_common():
        print(f"  {count} x {key}")
    return 1 if crashes or outcomes["malformed"] else 0


if __name__ == "__main__":
    sys.exit(main())
