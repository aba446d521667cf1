"""Generate sites with known templates: real pages of the dev sets refilled with other articles.

A template page is a dev-set page with a URL whose gold text the page's leaf text blocks (``p``,
``h1``, ``li``, ``td``, ... with no block inside) cover well: the blocks the gold aligns to
(``grist.train.labels.align``) are its content slots. Each generated page keeps everything else
of the template byte for byte and puts another article's gold paragraphs into the slots, in
order (the first slot, often the headline, gets the first paragraph; extra paragraphs follow the
last ``<p>`` slot; unused slots are removed). Its gold is exactly the inserted text. Each other text block of the template is dropped from a page with
probability ``--vary`` (default 0.1), as real pages show or hide boxes; 0 keeps them all.

Output: JSON lines (gzip for ``.gz``), one page per line with ``id``, ``url``, ``site``,
``template`` (the template's key; several templates may share a site), ``html``, ``gold``,
``date`` (one hour apart within a template, for replaying as a stream), ``source`` (dataset/id of
the template page) and ``article`` (dataset/id of the gold). Same arguments, same file.

    python benchmarks/generated_sites.py --datasets-dir ../shared/datasets --templates 40 \\
        --pages 24 --out build/generated-sites.jsonl.gz

Apart from the dropped boxes, the non-content part of a generated page is the same on all pages
of its template (no per-page related links, comments or dates), so scores on this set are an
upper bound for what template removal can do.
"""

from __future__ import annotations

import argparse
import datetime
import gzip
import html as html_lib
import json
import random
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path
from urllib.parse import urlsplit

from selectolax.lexbor import LexborHTMLParser, LexborNode

from grist.document import Block
from grist.io.datasets import Page, read_jsonl
from grist.segment.blocks import DEFAULT_SKIP_TAGS, HTML5_BLOCK_TAGS
from grist.train.labels import align

DATASETS = ("dragnet", "l3s-gn1", "cleanportaleval", "cleaneval-final", "modern-dev",
            "readability")
SLOT_TAGS = frozenset(("p", "h1", "h2", "h3", "h4", "h5", "h6", "li", "blockquote", "pre", "dd",
                       "dt", "td", "th", "div", "span", "font", "section", "article"))
MIN_COVERAGE = 0.9


def _element_children(node: LexborNode) -> list[LexborNode]:
    children, child = [], node.child
    while child is not None:
        if child.is_element_node and child.tag not in DEFAULT_SKIP_TAGS:
            children.append(child)
        child = child.next
    return children


def leaf_blocks(root: LexborNode) -> list[LexborNode]:
    """The outermost slot elements holding text but no block-level element, in document order."""
    order, stack = [], [root]
    while stack:  # pre-order
        node = stack.pop()
        order.append(node)
        stack.extend(reversed(_element_children(node)))
    has_block: dict[int, bool] = {}
    for node in reversed(order):  # children before parents
        has_block[node.mem_id] = any(c.tag in HTML5_BLOCK_TAGS or has_block[c.mem_id]
                                     for c in _element_children(node))
    found, stack = [], [root]
    while stack:
        node = stack.pop()
        if node.tag in SLOT_TAGS and not has_block[node.mem_id] and node.text(deep=True).strip():
            found.append(node)
            continue
        stack.extend(reversed(_element_children(node)))
    return found


def content_slots(dom: LexborHTMLParser, gold: str) -> tuple[list[LexborNode], float]:
    """The leaf blocks the gold text aligns to, and the share of gold words they cover."""
    body = dom.body or dom.root
    if body is None:
        return [], 0.0
    leaves = leaf_blocks(body)
    blocks = [Block(" ".join(n.text(deep=True, separator=" ").split()), index=i)
              for i, n in enumerate(leaves)]
    alignment = align(blocks, gold)
    return [n for n, keep in zip(leaves, alignment.labels, strict=True) if keep], \
        alignment.coverage


def fill(template: Page, paragraphs: Sequence[str], vary: float = 0.0,
         rng: random.Random | None = None) -> str | None:
    """The template page with ``paragraphs`` in its content slots (None: no usable slots);
    each other text block is dropped with probability ``vary`` (the boxes a page has or not)."""
    dom = LexborHTMLParser(template.html)
    slots, coverage = content_slots(dom, template.gold)
    if not slots or coverage < MIN_COVERAGE:
        return None
    if vary > 0:
        rng = rng or random.Random(0)
        taken = {s.mem_id for s in slots}
        for leaf in leaf_blocks(dom.body or dom.root):
            if leaf.mem_id not in taken and rng.random() < vary:
                leaf.decompose()
    for slot, text in zip(slots, paragraphs, strict=False):
        slot.inner_html = html_lib.escape(text, quote=False)
    if len(paragraphs) > len(slots):
        anchor = next((s for s in reversed(slots) if s.tag == "p"), slots[-1])
        for text in reversed(paragraphs[len(slots):]):
            anchor.insert_after(LexborHTMLParser(f"<p>{html_lib.escape(text, quote=False)}</p>")
                                .css_first("p"))
    for slot in slots[len(paragraphs):]:
        slot.decompose()
    return dom.html


def _host(url: str | None) -> str:
    host = (urlsplit(url).hostname or "") if url else ""
    return host.removeprefix("www.")


def generate(pages: Sequence[Page], templates: int, per_template: int, seed: int = 1,
             max_per_site: int = 1, vary: float = 0.0) -> Iterator[dict]:
    """Records of ``templates`` templates x ``per_template`` pages (see the module doc)."""
    rng = random.Random(seed)
    articles = [p for p in pages if 80 <= len(p.gold.split()) <= 3000]
    candidates = [p for p in pages if _host(p.url)]
    rng.shuffle(candidates)
    used: dict[str, int] = {}
    made = 0
    start = datetime.datetime(2026, 1, 1, tzinfo=datetime.UTC)
    for template in candidates:
        if made == templates:
            return
        site = _host(template.url)
        if used.get(site, 0) >= max_per_site or fill(template, ["probe"]) is None:
            continue
        used[site] = used.get(site, 0) + 1
        key = f"{template.dataset}/{template.id}"
        others = [a for a in articles if a is not template]
        for k in range(per_template):
            article = rng.choice(others)
            paragraphs = [p for p in article.gold.split("\n\n") if p.strip()]
            html = fill(template, paragraphs, vary, rng)
            assert html is not None
            yield {"id": f"{key}#{k}", "url": f"https://{site}/grist-generated/{made}/{k}",
                   "site": site, "template": key, "dataset": template.dataset, "html": html,
                   "gold": "\n\n".join(paragraphs),
                   "date": (start + datetime.timedelta(days=made, hours=k)).isoformat(),
                   "source": key, "article": f"{article.dataset}/{article.id}"}
        made += 1
    print(f"generated_sites: only {made} usable templates", file=sys.stderr)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--datasets-dir", type=Path, default=Path("../shared/datasets"))
    parser.add_argument("--datasets", default=",".join(DATASETS))
    parser.add_argument("--templates", type=int, default=40)
    parser.add_argument("--pages", type=int, default=24, help="pages per template")
    parser.add_argument("--max-per-site", type=int, default=1, help="templates per site")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--vary", type=float, default=0.1,
                        help="drop each non-content text block of a page with this probability")
    parser.add_argument("--out", type=Path, required=True, help="JSON lines (.gz: compressed)")
    args = parser.parse_args()
    pages = [p for name in args.datasets.split(",")
             for p in read_jsonl(args.datasets_dir / f"{name}.jsonl.gz")]
    opener = gzip.open if args.out.suffix == ".gz" else open
    args.out.parent.mkdir(parents=True, exist_ok=True)
    count = 0
    with opener(args.out, "wt", encoding="utf-8") as out:
        for record in generate(pages, args.templates, args.pages, args.seed, args.max_per_site,
                               args.vary):
            out.write(json.dumps(record, ensure_ascii=False) + "\n")
            count += 1
    print(f"generated_sites: {count} pages -> {args.out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
