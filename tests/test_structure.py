"""The pre-parse bound on what lexbor builds: it follows the tree rules and never undercounts."""

import pytest
from selectolax.lexbor import LexborHTMLParser

from grist.errors import LimitExceededError
from grist.fuzz import make_case
from grist.html.doctype import quirks_mode
from grist.html.load import load_document
from grist.html.parse import (PARSED_DEPTH, check_before_parsing, check_structure, parse_document,
                              tree_depth)
from grist.html.structure import (ATTRIBUTE_WORK, Structure, StructureLimit, measure,
                                  quick_bound)
from grist.limits import Limits


def built(source: str) -> Structure:
    """What lexbor really builds: deepest nesting and elements, html/head/body not counted."""
    deepest = count = 0
    stack = [(LexborHTMLParser(source).root, 1)]
    while stack:
        node, depth = stack.pop()
        if node.tag and node.tag[0] not in "-_!":
            count += node.tag not in ("html", "head", "body")
            deepest = max(deepest, depth - 2)
        child = node.child
        while child is not None:
            stack.append((child, depth + 1))
            child = child.next
    return Structure(deepest, count)


def fuzz_pages(seed: int, family: str, count: int = 40) -> list[tuple[str, str]]:
    """The fuzz suite's first ``count`` pages of one family as text (lone surrogates replaced)."""
    pages = []
    for index in range(count):
        case = make_case(seed, index, scale=0.02, families=[family])
        source = case.content if isinstance(case.content, str) else case.content.decode(
            "utf-8", "replace")
        pages.append((case.name, "".join("\ufffd" if "\ud800" <= c <= "\udfff" else c
                                         for c in source)))
    return pages


EXACT = [
    "<div><div><span>x</span></div></div>",
    "<ul>" + "<li>item" * 50 + "</ul>",
    "<p>a<p>b<br><img src=x>",
    "<div>" + "<svg>" + '<path d="M0 0"/>' * 20 + "<g><circle r=1 /></g></svg>" + "</div>",
    "<div/>" * 5,  # "/>" is ignored on an HTML element
    "<table><tr><td>a<td>b<tr><td>c</table>",
    "<p><b>one</p>two<p>three",  # the <b> is re-opened twice
    "<textarea><div><div></textarea><p>after",
    "<script><!--<script></script><div></script><p>x",  # double-escaped script data
    "<!-- <div><div> --><p>x",
    '<a title="x>y</div>"><b>x</b></a>',  # ">" inside a quoted attribute value
    "<select><option>a<option>b</select>",
    "<!DOCTYPE html><p><table><tr><td>x</table>",
    "<p><table><tr><td>x</table>",  # quirks mode: the table stays inside the paragraph
    "<math><mi><div>x</div></mi></math>",
]


@pytest.mark.parametrize("source", EXACT)
def test_follows_the_tree_rules(source):
    bound, real = measure(source, 4000, 400_000), built(source)
    assert (bound.depth, bound.elements) == (real.depth, real.elements)


@pytest.mark.parametrize("source", [
    "<b><p>x</b>y</p>",  # the adoption agency moves the paragraph's children one level down
    "<frameset><frameset><frame></frameset>",  # the body stays counted under the frameset
])
def test_errs_by_one_level_where_it_simplifies(source):
    bound, real = measure(source, 4000, 400_000), built(source)
    assert bound.elements == real.elements and bound.depth == real.depth + 1


def test_quirks_mode_is_read_from_the_doctype():
    assert quirks_mode("<p>no doctype")
    assert not quirks_mode("<!-- x --> <!DOCTYPE html><p>")
    assert quirks_mode('<!DOCTYPE html PUBLIC "-//W3C//DTD HTML 4.01 Transitional//EN">')
    assert not quirks_mode('<!DOCTYPE html PUBLIC "-//W3C//DTD HTML 4.01 Transitional//EN" "x">')
    assert quirks_mode("<!DOCTYPE svg>") and quirks_mode("<!DOCTYPE>")


def test_stray_end_tags_do_not_hide_depth():
    # <div></span> repeated: each </span> closes nothing, so the nesting grows by one each time
    # (fuzz cases 06, 09 and 13: the old tag-counting estimate said depth 1).
    for unit in ("<div></span>w, ", "<li><section></x>w, ", "<font size=2></span>w"):
        page = "<html><body>" + unit * 5000
        assert measure(page, 100_000, 1_000_000).depth >= 5000
        with pytest.raises(LimitExceededError, match="max_depth"):
            check_structure(page, Limits())


def test_reopened_formatting_elements_are_counted_before_parsing():
    # Unclosed formatting tags followed by many paragraphs: the parser re-opens all k of them in
    # each of the m paragraphs (fuzz case 02: 420 KB made lexbor fail).
    page = "<p>" + "".join(f"<strong id=v{i}>" for i in range(300)) + "<p>x" * 2000
    with pytest.raises(StructureLimit) as hit:
        measure(page, 4000, 400_000)
    assert hit.value.what == "elements"
    with pytest.raises(LimitExceededError, match="elements.*Limits.max_tags"):
        check_structure(page, Limits())
    small = "<p>" + "".join(f"<b id={i}>" for i in range(20)) + "<p>x" * 30
    assert measure(small, 4000, 400_000).elements >= built(small).elements == 20 * 31 + 31


def test_identical_formatting_tags_are_reopened_at_most_three_at_a_time():
    page = "<p>" + "<b>" * 50 + "<p>x" * 100  # Noah's Ark keeps three identical entries
    bound, real = measure(page, 4000, 400_000), built(page)
    assert (bound.depth, bound.elements) == (real.depth, real.elements) == (51, 451)


def test_alike_formatting_tags_tighten_the_quick_bound():
    # 100 formatting tags of two kinds, never closed, then 3000 paragraphs: counted one by one
    # the quick bound would re-open all 100 in each paragraph; Noah's Ark keeps three of a kind.
    page = "<p>" + '<b class="x">' * 50 + "<FONT size=2>" * 50 + "<p>x" * 3000
    loose, tight = quick_bound(page), quick_bound(page, max_elements=400_000)
    assert loose.elements > 400_000 >= tight.elements >= built(page).elements
    assert check_structure(page, Limits()) > 0
    # a quoted value swallows the tags after it: they count as left open, and so does the tag
    swallowed = "<p><i title='x>" + "<b>" * 99 + "'>" + "<p>x" * 3000
    assert quick_bound(swallowed, max_elements=0) == quick_bound(swallowed)


def test_formatting_elements_closed_at_once_are_never_reopened():
    # 300 icons, each an <i> of its own class closed by its own end tag: each is the current node
    # from start to end tag, so no paragraph re-opens them; left open, each paragraph would.
    icons = "".join(f'<i class="icon-{k}"></i><b>bold {k}</b>' for k in range(300))
    page = "<div>" + icons + "</div>" + "<p>x" * 2_000
    loose, tight = quick_bound(page), quick_bound(page, max_elements=400_000)
    assert loose.elements > 400_000 >= tight.elements >= built(page).elements
    assert check_structure(page, Limits()) > 0
    left_open = "<p>" + "".join(f'<i class="icon-{k}">' for k in range(300)) + "<p>x" * 2_000
    assert quick_bound(left_open, max_elements=400_000).elements > 400_000
    with pytest.raises(LimitExceededError, match="elements"):
        check_structure(left_open, Limits())
    # text holding a "<" between the tags: not claimed as closed at once
    lt = "<p>" + "".join(f'<i class="c{k}">a < b</i>' for k in range(300)) + "<p>x" * 2_000
    assert quick_bound(lt, max_elements=400_000).elements > 400_000


def test_a_swallowing_tag_leaves_the_other_formatting_tags_counted_as_before():
    # a quoted value holding markup hides two <b> from the scan (the counts see them): they and
    # the tag that holds them count as left open, the other 300 icons are still closed at once
    icons = "".join(f'<i class="icon-{k}"></i>' for k in range(300))
    page = "<div>" + icons + "<i title='<b>bold</b>'></i></div>" + "<p>x" * 2_000
    tight = quick_bound(page, max_elements=400_000)
    assert quick_bound(page).elements > 400_000 >= tight.elements >= built(page).elements
    assert check_structure(page, Limits()) > 0


SWALLOWING_PIECES = [
    "<b>", "</b>", "<i class=x>", "</i>", "<em>", "</em>", "<font size=2>", "</font>", "<s>", "</s>",
    "<i title='", "<b title=\"", "'>", "\">", "'", "\"", "word ", "a < b ", "<p>", "<div>", "</div>",
    "<a href=x>", "</a>", "<table><tr><td>", "</td></tr></table>", "<br>", "<!-- ", " -->",
    "<script>", "</script>", "<svg>", "</svg>", "<i class=\"<b>\">", "<b data-x='<i>y</i>'>",
]


def test_the_bound_never_undercounts_when_quotes_swallow_formatting_tags():
    # random pages where quoted values and quotes left open hide formatting tags from the scan
    import random

    from grist.html.structure import _FORMATTING, _FORMATTING_TAG, census

    rng, hidden = random.Random(7), 0
    for _ in range(600):
        page = ("".join(rng.choice(SWALLOWING_PIECES) for _ in range(rng.randint(5, 80)))
                + "<p>x" * rng.randint(1, 60))
        found = census(page).named_starts
        hidden += len(_FORMATTING_TAG.findall(page)) < sum(found[n] for n in _FORMATTING) - found["a"]
        bound, real = quick_bound(page, max_elements=0), built(page)
        assert bound.depth >= real.depth and bound.elements >= real.elements, page
    assert hidden > 300  # the pages do exercise the swallowed case


CLOSED_AT_ONCE = [  # each then followed by paragraphs that would re-open what stays open
    "<p><b>x</b><i class=a></i><b>y</b>",
    "<table><b>x</b><tr><td><i>y</i></td></tr></table>",  # foster-parented, then in a cell
    "<select><b>x</b></select><i>y</i>",
    "<svg><font>x</font><b>y</b></svg>",  # a plain <font> stays in SVG; <b> breaks out
    "<template><b>x</b></template><b>y</B >",
    "<b>x<p>y</b>",  # a block between: not closed at once, counted as open
    "<p><b>one</p><b>two</b>",  # the first <b> outlives its paragraph
    "<nobr>a</nobr><nobr>b<nobr>c</nobr>",
    # names whose end tag may leave them (or what they hold) open, and tags of other modes
    "<body class=x>a</body><b>y",
    "<html>a</html><i>y",
    "<b>x<p>y<form>z</form><i>w",  # </form> with the <b> re-opened inside the form
    "<a href=x>a</a><a>b<a>c</a>",  # an <a> left open, then one closed at once
    "<table><a>x</a><tr><td><a>y</a></td></tr></table>",
    "<select><a>x</a><option>o</option></select><b>y",
    "<svg><a>x</a><desc>d</desc><foreignObject>f</foreignObject></svg>",
    "<td>x</td><tr>y</tr><caption>c</caption><colgroup>g</colgroup>",
    "<textarea>t</textarea><title>t</title><script>s</script><TABLE>x</table >",
]


@pytest.mark.parametrize("head", CLOSED_AT_ONCE)
def test_the_closed_at_once_bound_never_undercounts(head):
    page = head * 20 + "<p>x" * 50
    real = built(page)
    for bound in (quick_bound(page, max_elements=0), quick_bound(page, max_depth=0)):
        assert bound.depth >= real.depth and bound.elements >= real.elements


def test_links_closed_at_once_settle_a_large_shallow_page_without_the_rule_walk():
    # 12,000 list items of one link each (a large article's references and navigation): every
    # start tag counted as a level of its own, and 32 adoption-agency copies for every <a> and
    # </a>, put the page past both caps; each link opens and closes around its text alone, so
    # together the links count one level and make no copies.
    page = "<ul>" + "<li><a href='/x'>item</a></li>" * 12_000 + "</ul>"
    limits = Limits()
    loose = quick_bound(page)
    assert loose.depth > PARSED_DEPTH and loose.elements > limits.max_tags
    tight = quick_bound(page, PARSED_DEPTH, limits.max_tags)
    assert PARSED_DEPTH >= tight.depth > limits.max_depth
    assert limits.max_tags >= tight.elements >= built(page).elements
    found, depth_unknown = check_before_parsing(page, limits)
    assert depth_unknown and found.starts == 24_001  # settled: the parsed tree gives the depth
    assert tree_depth(parse_document(load_document(page), limits).dom) == built(page).depth == 3
    # a link whose text holds a tag is not closed at once: those stay counted one by one
    nested = "<ul>" + "<li><a href='/x'><b>item</b></a></li>" * 12_000 + "</ul>"
    assert quick_bound(nested, PARSED_DEPTH, limits.max_tags).depth > PARSED_DEPTH


def test_attributes_are_bounded_before_parsing():
    # 62,000 distinct attributes on one tag cost lexbor seconds (fuzz family "attrs").
    page = "<p " + " ".join(f"a{i}=x" for i in range(40_000)) + ">text</p>"
    with pytest.raises(LimitExceededError, match="attributes"):
        check_structure(page, Limits())
    assert quick_bound('<a href="x" class="y z">t</a>').attribute_work >= 3 ** 2


def test_a_large_shallow_page_has_its_depth_measured_on_the_parsed_tree():
    # 6,000 start tags: the quick bound allows 6,000 levels, past the 4,000 cap; the page nests
    # three deep, which the parsed tree shows at a fraction of the rule walk's cost.
    page = "<ul>" + "<li><span>item</span></li>" * 3_000 + "</ul>"
    limits = Limits()
    assert quick_bound(page).depth > limits.max_depth
    found, depth_unknown = check_before_parsing(page, limits)
    assert depth_unknown and found.starts == 6_001  # left to the parsed tree
    doc = parse_document(load_document(page), limits)
    assert tree_depth(doc.dom) == built(page).depth == 3
    # methods that never parse: the spans, each closed at once, bring the quick bound under the
    # cap (no rule walk either)
    assert quick_bound(page, limits.max_depth).depth <= limits.max_depth
    assert check_structure(page, limits) > 0


@pytest.mark.parametrize("depth, parsed_first", [(4_001, True), (PARSED_DEPTH + 1, False)])
def test_a_page_past_the_depth_cap_is_refused_either_way(depth, parsed_first):
    page = "<div>" * depth + "x"
    limits = Limits()
    if parsed_first:  # within what the parser nests quickly: the parsed tree is measured
        assert check_before_parsing(page, limits)[1]
    with pytest.raises(LimitExceededError, match="max_depth"):
        parse_document(load_document(page), limits)
    with pytest.raises(LimitExceededError, match="max_depth"):
        check_structure(page, limits)


@pytest.mark.parametrize("head", ["<html><head><title>", "<p>x<noscript><iframe>"])
def test_the_check_reads_the_source_the_parser_is_given(head):
    # Unrepaired, the nesting is the title's or the iframe's raw text; the parser is given the
    # title ended at the next tag and the iframe closed at its start tag (grist.html.parse's
    # repairs), and would nest 100,000 divs (24 s of lexbor) had the check read the page as sent.
    from grist.html.parse import repaired_source

    page = head + "<div>" * 100_000 + "words"
    limits = Limits()
    assert check_structure(page, limits) > 0  # as sent: raw text, shallow
    with pytest.raises(LimitExceededError, match="max_depth"):
        check_structure(repaired_source(page), limits)
    with pytest.raises(LimitExceededError, match="max_depth"):
        parse_document(load_document(page), limits)
    shallow = head + "<div>" * 30 + "words"
    assert tree_depth(parse_document(load_document(shallow), limits).dom) >= 30


@pytest.mark.parametrize("family", ["deep", "soup", "stray", "adoption", "tables", "foreign"])
def test_the_parsed_depth_is_what_lexbor_built(family):
    for name, source in fuzz_pages(14, family, count=20):
        assert tree_depth(LexborHTMLParser(source)) == built(source).depth, name


def test_many_tags_with_a_few_attributes_each_pass_the_quick_bound():
    # 39,000 attributes in all, as a large real page has: the page-wide count alone would allow
    # for all of them on one tag (39,001^2 comparisons); tag by tag each holds three.
    page = '<a href="/x" class="link" title="t">text</a>\n' * 13_000
    bound = quick_bound(page)
    assert bound.attribute_work <= ATTRIBUTE_WORK < (3 * 13_000 + 1) ** 2
    assert bound.attribute_work >= 13_000 * (3 + 1) ** 2
    assert check_structure(page, Limits()) > 0
    # a quote never closed: lexbor reads the rest as one value of one tag (its attributes end at
    # the quote); the scan reads tags on, a superset, so the bound still holds
    assert quick_bound("<p title='" + page).attribute_work >= 13_000 * (3 + 1) ** 2
    # a script's "<b" inside a string swallows the next tag in the scan: still bounded
    script = "<script>if (a <b && c) { s = '<i class=\\'x\\'>'; }</script>"
    assert quick_bound(script + page).attribute_work <= ATTRIBUTE_WORK
    # a tag the input cuts holds everything after it: no claim
    assert quick_bound(page + '<a href="/x" ' + "b " * 40_000).attribute_work > ATTRIBUTE_WORK
    # past the depth cap the rule walk runs anyway: no scan (the links, each closed at once,
    # count one level together: a depth bound of 4)
    assert quick_bound(page, max_depth=10).depth == 4
    assert quick_bound(page, max_depth=3).attribute_work > ATTRIBUTE_WORK


@pytest.mark.parametrize("family", ["soup", "attrs", "rawtext", "foreign"])
def test_the_tag_by_tag_attribute_bound_holds_the_sum_of_squares(family):
    # lexbor's comparisons on a tag of k attributes are bounded by (k + 1)^2 (what measure()
    # adds up, with k over-estimated from the length on short tags): the bound holds their sum
    from grist.html.structure import (_ATTRIBUTE_START, _NAME, _WHOLE_TAG, _attribute_work_by_tag,
                                      attribute_starts)

    for name, source in fuzz_pages(13, family):
        bound = _attribute_work_by_tag(source, len(_NAME.findall(source)),
                                       attribute_starts(source))
        squares = 0
        for place in _NAME.finditer(source):  # a tag may start at any "<" + letter
            whole = _WHOLE_TAG.match(source, place.start())
            attributes = whole.group(2) if whole else source[place.end():]
            squares = max(squares, (len(_ATTRIBUTE_START.findall(" " + attributes)) + 1) ** 2)
        tags_alone = sum((len(_ATTRIBUTE_START.findall(" " + attributes)) + 1) ** 2
                         for _, attributes, _ in _WHOLE_TAG.findall(source))
        assert bound >= max(squares, tags_alone), name


@pytest.mark.parametrize("family", ["soup", "stray", "adoption", "tables", "foreign", "rawtext",
                                    "insert", "fmtbomb"])
def test_never_undercounts_what_lexbor_builds(family):
    for name, source in fuzz_pages(11, family):
        try:
            bound = measure(source, 4000, 400_000)
        except StructureLimit:
            continue
        real = built(source)
        assert bound.depth >= real.depth and bound.elements >= real.elements, name


@pytest.mark.parametrize("family", ["soup", "stray", "adoption", "tables", "foreign", "rawtext",
                                    "insert", "fmtbomb", "linkstorm", "tinytags"])
def test_the_quick_bound_never_undercounts_what_lexbor_builds(family):
    for name, source in fuzz_pages(12, family):
        real = built(source)
        # always tightened: the elements bound, and the depth bound (then returned as it is)
        for bound in (quick_bound(source, max_elements=0), quick_bound(source, max_depth=0)):
            assert bound.depth >= real.depth and bound.elements >= real.elements, name


def test_attribute_starts_counts_what_the_pattern_counts():
    import random

    from grist.html.structure import _ATTRIBUTE_START, _WINDOW, attribute_starts

    rng = random.Random(11)
    alphabet = ' \t\n\r\f/"\'>ab=<é\u2028\ud800'
    for _ in range(2000):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 50)))
        assert attribute_starts(text) == len(_ATTRIBUTE_START.findall(text))
    # slices of _WINDOW characters: a start right at a slice boundary counts once
    long = ("x" * (_WINDOW - 1) + ' a"b' + "é" * 10) * 3
    assert attribute_starts(long) == len(_ATTRIBUTE_START.findall(long)) == 6


@pytest.mark.parametrize("family", ["soup", "attrs", "rawtext", "foreign"])
def test_the_longest_attribute_text_is_the_longest_of_every_place_scanned_alone(family):
    # one pass tag after tag, and only the places a swallowing tag hid scanned alone, gives the
    # maximum of scanning every place where a tag may start on its own
    from grist.html.structure import _NAME, _WHOLE_TAG, _attribute_scan, attribute_starts

    script = "<script>if (a <b && c) { s = '<i class=\\'x\\'>'; }</script>"
    pages = [*fuzz_pages(15, family), ("script", script + '<a href="/x" class="y">t</a>' * 50)]
    for name, source in pages:
        places = [place.start() for place in _NAME.finditer(source)]
        each_alone = max(
            (len(whole.group(2)) if (whole := _WHOLE_TAG.match(source, at)) else len(source) - at
             for at in places), default=0)
        assert _attribute_scan(source, len(places), attribute_starts(source))[0] == each_alone, name


def test_the_compiled_scans_were_built():
    # setup.py builds them with the package; without a compiler the patterns do the same work
    import grist.html.structure as structure

    assert structure.compiled_scans()


SCAN_SAMPLES = [
    "",
    "<",
    "x<",
    "</",
    "<!doctype html><P CLASS=a>x</P><Br/><br >",
    "<TD><td x><Tr></tr><col span=2><FORM></form><nobr></NoBr><strike>",
    '<a title="x>y</div>"><b>x</b></a>',
    "<a b='unclosed><i c=\"d\">e</i>",
    "<p a=\"1\" b='2' c=3 d = \"4\" e\t=\n'5' / >t",
    "<div/x/y=z>",
    "<é><p é=ü>ß</p>\u2028<b title=\"\u4e2d\">\U0001f600</b>",
    "<span class=\"x\ud800\">lone surrogate</span>",
    "<a href=x" + " b" * 50,  # a tag the input cuts
]


@pytest.mark.parametrize("family", ["soup", "attrs", "rawtext", "foreign", "fmtbomb"])
def test_the_compiled_census_counts_what_the_patterns_count(family):
    # one pass over the code points of every kind of str (1, 2 and 4 bytes a character)
    from grist.html.structure import census, census_by_patterns

    for name, source in [*fuzz_pages(16, family), *((s, s) for s in SCAN_SAMPLES)]:
        assert census(source) == census_by_patterns(source), name
    counted = census("<P><p></P><b><B></b><td><br></br>")
    assert (counted.opens, counted.tags, counted.starts, counted.ends) == (9, 9, 6, 3)
    assert counted.named_starts["p"] == 2 and counted.named_ends["p"] == 1
    assert counted.named_starts["b"] == 2 and counted.named_ends["br"] == 1


def test_the_compiled_census_counts_long_texts_of_every_width_as_the_patterns_do():
    # the compiled census counts 16 bytes at a time (bytes summed every 255 steps) and finds
    # "<" by memchr or 8 characters at a time: texts of every length around those steps, with
    # the characters it compares at every position, in str of 1, 2 and 4 bytes a character
    import random

    from grist.html.structure import census, census_by_patterns

    rng = random.Random(11)
    alphabet = ["a", "b", " ", "\t", "\n", "\f", "\r", "/", '"', "'", ">", "<", "=", "p", "P"]
    for wide in ("", "\xe9", "\u20ac", "\U0001f600"):
        for length in (15, 16, 17, 31, 4079, 4080, 4081, 4097, 9000):
            text = "".join(rng.choice(alphabet) for _ in range(length - len(wide))) + wide
            for source in (text, text[::-1], "<" + text[1:], text[:-1] + "<"):
                assert census(source) == census_by_patterns(source), (wide, length)


@pytest.mark.parametrize("family", ["soup", "attrs", "rawtext", "foreign"])
def test_the_compiled_attribute_scan_matches_the_patterns(family):
    import grist.html.structure as structure

    for name, source in [*fuzz_pages(17, family), *((s, s) for s in SCAN_SAMPLES)]:
        places, starts = len(structure._NAME.findall(source)), structure.attribute_starts(source)
        assert (structure._attribute_scan(source, places, starts)
                == structure.attribute_scan_by_patterns(source, places, starts)), name
    # a quoted value swallows the next tag: the pass finds 2 tags of 3 places, and the place it
    # skipped is scanned alone; the swallowing tag's attributes are the longest
    swallowed = '<a title="x><b class="' + "y" * 30 + '">t</b>'
    longest, squares = structure._attribute_scan(swallowed, 3, 3)
    assert longest == len(' title="x><b class="' + "y" * 30 + '"')
    # starts after a separator or a quote: <a> 4 (t, x, c, y), </b> none, <b> alone 2 (c, y)
    assert squares == (4 + 1) ** 2 + 1 + (2 + 1) ** 2
    # a tag the input cuts holds the rest of the input, and every attribute start of the page
    # plus one (the character after its name may start one)
    assert structure._attribute_scan("<a x y z", 1, 3) == (8, (3 + 2) ** 2)
    assert structure._attribute_scan("<a x='<b y z", 2, 4) == (12, 2 * (4 + 2) ** 2)


def test_a_tag_the_input_cuts_ends_every_scan_that_reads_tags():
    import grist.html.structure as structure

    # No ">" after the first tag: every later place starts a tag the input cuts. Each scan took
    # every "<" again and read to the end from it: 15,000 such places cost 10 s of C, and longer
    # pages grew with the square of their length. Past the first cut place the attribute scan
    # counts every place as cut, the most a place can hold; the element scans stop there.
    page = "<p>" + "<p b c d e " * 20_000
    places, starts = len(structure._NAME.findall(page)), structure.attribute_starts(page)
    cut = (len(page) - 3, 1 + 20_000 * (starts + 2) ** 2)  # (the first tag, <p>, has none)
    assert structure._attribute_scan(page, places, starts) == cut
    assert structure.attribute_scan_by_patterns(page, places, starts) == cut
    assert structure._closed_at_once("<i>x</i>" + page) == {"i": 1}
    assert structure._reopenable_formatting("<b c " * 20_000, 20_000) == 20_000  # all unsure
    # a tag after the cut one that a scan of its own would close counts as cut as well
    late = '<a x="1 <b y=2> "'
    assert structure._attribute_scan(late, 2, 3) == (len(late), 2 * (3 + 2) ** 2)
    assert structure.attribute_scan_by_patterns(late, 2, 3) == (len(late), 2 * (3 + 2) ** 2)
    bound, real = quick_bound(page, max_elements=0), built(page)
    assert bound.depth >= real.depth and bound.elements >= real.elements


def test_the_quick_bound_is_the_same_without_the_compiled_scans(monkeypatch):
    import grist.html.structure as structure

    pages = [source for _, source in fuzz_pages(18, "soup", count=10)] + SCAN_SAMPLES
    compiled = [quick_bound(source, max_elements=0) for source in pages]
    monkeypatch.setattr(structure, "_scan", None)  # as an install without a C compiler
    assert [quick_bound(source, max_elements=0) for source in pages] == compiled
