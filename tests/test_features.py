"""Block features (grist.features.text) and stop-word lists, each formula on hand-made pages."""

from __future__ import annotations

import numpy as np
import pytest

import grist

from grist.document import Block, Document
from grist.errors import GristError
from grist.features.stopwords import available_languages, guess_language, load_stopwords
from grist.features.text import FEATURE_NAMES, block_features, stopword_language, text_densities
from grist.methods.justext import JustextConfig
from grist.html.parse import parse_document
from grist.segment.blocks import segment


def page_blocks(body: str) -> list[Block]:
    doc = parse_document(Document(html=f"<html><body>{body}</body></html>"))
    return segment(doc)


def features_of(*texts: str, **kw):
    return block_features([Block(text=t, index=i) for i, t in enumerate(texts)], **kw)


def test_columns_are_named_and_one_row_per_block():
    fm = features_of("one", "two words")
    assert fm.names == FEATURE_NAMES and fm.values.shape == (2, len(FEATURE_NAMES))
    assert len(block_features([])) == 0


def test_words_need_a_letter_or_digit_and_word_length_counts_their_characters():
    fm = features_of("Hello world, 42 ! --")
    assert fm.column("num_tokens")[0] == 5
    assert fm.column("num_words")[0] == 3  # "!" and "--" are not words
    assert fm.column("avg_word_length")[0] == pytest.approx((5 + 6 + 2) / 3)
    assert fm.column("num_chars")[0] == len("Hello world, 42 ! --")


def test_sentences_end_at_full_stop_question_exclamation_or_semicolon():
    fm = features_of("One two. Three four five? Six; seven!", "No end here at all", "Quoted end.\"")
    assert fm.column("num_sentences").tolist() == [4, 1, 1]
    assert fm.column("avg_sentence_length").tolist() == [7 / 4, 5, 2]
    other_scripts = features_of("यह एक वाक्य है। दूसरा वाक्य॥", "هل هذا سؤال؟ نعم", "Սա է։ Այո։")
    assert other_scripts.column("num_sentences").tolist() == [2, 2, 2]


def test_upper_case_words_and_their_ratio():
    fm = features_of('NASA and Bob met ALICE "Carol" at 9')
    assert fm.column("upper_words")[0] == 4
    assert fm.column("upper_ratio")[0] == pytest.approx(4 / 8)


def test_full_stops_per_word_dates_and_vertical_bars():
    fm = features_of(
        "U.S. stocks fell.",
        "Posted 12:30 on Monday, 2008-01-23 and 23/01/2008 in March 1999 (page 42)",
        "Home | News | Sport",
    )
    assert fm.column("full_stop_ratio")[0] == pytest.approx(3 / 3)
    assert fm.column("date_tokens").tolist() == [0, 6, 0]
    assert fm.column("vertical_bars").tolist() == [0, 0, 2]


def test_version_numbers_scores_and_dotted_times_are_not_dates():
    fm = features_of(
        "Django 2.0.12 fixes a packaging error in 2.0.11.",
        "Final score 0-16.855 at 16.40.26",
        "Updated 31.12.1999, 3/1/24 and 12-31-2024",
    )
    assert fm.column("date_tokens").tolist() == [0, 0, 3]


def test_link_density_in_tokens_and_in_characters():
    (block,) = page_blocks('<p><a href="#">one two</a> three four</p>')
    fm = block_features([block])
    assert fm.column("link_density")[0] == pytest.approx(2 / 4)
    assert fm.column("link_char_density")[0] == pytest.approx(len("one two") / len("one two three four"))
    assert fm.column("tag_a")[0] == 1


def test_text_density_wraps_at_80_columns_and_drops_the_last_line():
    # 16 words of 4 letters fill a line (16 * 5 - 1 = 79 columns); 30 words make 2 lines.
    fm = features_of(" ".join(["abcd"] * 30), "a b c", " ".join(["abcd"] * 48))
    assert fm.column("text_density").tolist() == [16, 3, 16]


def test_text_density_of_a_token_longer_than_a_line():
    import numpy as np

    long_token = "x" * 100
    lengths = np.array([100, 3, 3])
    flags = np.array([True, True, True])
    text = f"{long_token} abc def"
    density = text_densities(np.array([len(text)]), np.array([3.0]), lengths, flags, np.array([3]))
    assert density.tolist() == [1.0]  # line 1: the long token; line 2 (last): "abc def"


def test_stopword_density_uses_the_chosen_list():
    fm = features_of("the cat and the dog", "der Hund und die Katze")
    assert fm.column("stopword_density").tolist() == pytest.approx([3 / 5, 0.0])
    de = features_of("the cat and the dog", "der Hund und die Katze", stopwords="de")
    assert de.column("stopword_density")[1] == pytest.approx(3 / 5)
    own = features_of("cat dog cat", stopwords={"Cat"})
    assert own.column("stopword_density")[0] == pytest.approx(2 / 3)


def test_auto_language_picks_the_best_covering_list_and_reports_it():
    texts = ["Der Hund und die Katze sind nicht in dem Haus, aber sie sind bei uns."]
    assert stopword_language(texts) == "de"
    german = block_features([Block(text=texts[0])], stopwords="de")
    assert np.array_equal(block_features([Block(text=texts[0])], stopwords="auto").values,
                          german.values)
    page = "<p>" + texts[0] + "</p>"
    result = grist.extract(page, method="justext", config=JustextConfig(stopwords="auto"))
    assert result.meta["language"] == "de"


def test_punctuation_count_and_copyright():
    fm = features_of("Hi, there! (yes).", "\xa9 2024 Example Inc.")
    assert fm.column("punctuation").tolist() == [5, 1]
    assert fm.column("copyright").tolist() == [0, 1]


def test_closing_tag_indicators_depth_and_position():
    blocks = page_blocks("<h1>Title</h1><h3>Sub</h3><p>Para</p><div>Box</div><ul><li>Item</li></ul>")
    fm = block_features(blocks)
    assert fm.column("tag_h1").tolist() == [1, 0, 0, 0, 0]
    assert fm.column("tag_h3").tolist() == [0, 1, 0, 0, 0]
    assert fm.column("tag_p").tolist() == [0, 0, 1, 0, 0]
    assert fm.column("tag_div").tolist() == [0, 0, 0, 1, 0]
    assert fm.column("depth").tolist() == [b.depth for b in blocks]
    assert fm.column("depth")[4] > fm.column("depth")[2]  # html>body>ul>li vs html>body>p
    assert fm.column("position").tolist() == [0, 1, 2, 3, 4]
    assert fm.column("relative_position").tolist() == [0, 0.25, 0.5, 0.75, 1]


def test_previous_and_next_block_quotients():
    fm = features_of("a b", "a b c d", "a")
    assert fm.column("num_words_quotient").tolist() == [2, 2, 0.25]  # first block: previous = 0
    assert fm.column("next_num_words_quotient").tolist() == [2, 0.25, 0]
    assert fm.column("text_density_quotient").tolist() == [2, 2, 0.25]
    assert fm.column("prev_num_words").tolist() == [0, 2, 4]
    assert fm.column("next_num_words").tolist() == [4, 1, 0]


def test_bundled_lists_aliases_files_and_errors(tmp_path):
    assert {"en", "de", "fr", "es"} <= set(available_languages())
    assert "the" in load_stopwords("English") and "und" in load_stopwords("de")
    assert "le" in load_stopwords("fr") and "el" in load_stopwords("es")
    core, extended = load_stopwords("en"), load_stopwords("en", extended=True)
    assert core < extended and "people" in extended and "people" not in core
    path = tmp_path / "xx.txt"
    path.write_text("# my list\nFoo\n\nbar\n## extended\nbaz\n", encoding="utf-8")
    assert load_stopwords(path) == {"foo", "bar"}
    assert load_stopwords(str(path), extended=True) == {"foo", "bar", "baz"}
    with pytest.raises(GristError, match="no stop-word list"):
        load_stopwords("klingon")
    with pytest.raises(GristError, match="cannot read"):
        load_stopwords(tmp_path / "missing.txt")


def test_guess_language_prefers_english_on_ties():
    assert guess_language(["le", "chat", "et", "la", "souris"]) == "fr"
    assert guess_language(["xyz"]) == "en"


def test_tokens_are_those_of_str_split_even_with_astral_characters_and_newlines():
    from grist.features.chars import tokenize

    texts = ["  a\u00a0b\tc ", "line one\nline two", "emoji \U0001f600 and 𝐁old", "x"]
    tok = tokenize(texts)
    expected = [len(t.split()) for t in texts]
    assert tok.counts.tolist() == expected
    assert tok.length.tolist() == [len(w) for t in texts for w in t.split()]
    assert tok.owner.tolist() == [i for i, c in enumerate(expected) for _ in range(c)]
    assert tok.word.tolist() == [True] * 8 + [False, True, True, True]  # the emoji is no word


def _ideograph(c):
    from grist.features.chars import IDEOGRAPHS

    return c.isalnum() and any(a <= ord(c) <= b for a, b in IDEOGRAPHS)


def _reference_split(text):
    """Tokens the slow, obvious way: ``str.split()``, but an ideograph starts a token of its own,
    and the punctuation right after it belongs to it."""
    tokens, led = [], False  # led: the current token is an ideograph and punctuation so far
    for c in text:
        if c.isspace():
            tokens.append("")
            continue
        if not tokens or not tokens[-1] or _ideograph(c) or (led and (c.isalnum() or c == "_")):
            tokens.append(c)
            led = _ideograph(c)
        else:
            tokens[-1] += c
    return [t for t in tokens if t]


def test_ideographs_are_words_of_their_own():
    from grist.features.chars import tokenize
    from grist.whitespace import count_tokens

    text = "谷歌(微博)在2014年收购了DeepMind。它 「很好」 abc"
    assert _reference_split(text) == ["谷", "歌(", "微", "博)", "在", "2014", "年", "收", "购",
                                      "了", "DeepMind。", "它", "「", "很", "好」", "abc"]
    tok = tokenize([text])
    assert [text[s : s + n] for s, n in zip(tok.start, tok.length)] == _reference_split(text)
    assert count_tokens(text) == 16
    matrix = features_of("我们今天去了北京。天气很好！")
    assert matrix.column("num_words")[0] == 12  # the twelve characters, not one "word"
    assert matrix.column("num_sentences")[0] == 2  # 。 and ！ end sentences


def _reference_tokens(texts):
    """Per-token facts computed the slow, obvious way (the definition ``tokenize`` must meet)."""
    from grist.features.chars import CLOSERS, OPENERS, SENTENCE_ENDS

    rows = []
    for owner, text in enumerate(texts):
        for token in _reference_split(text):
            body, core = token.lstrip(OPENERS), token.rstrip(CLOSERS)
            rows.append((owner, len(token), any(c.isalnum() for c in token),
                         any(c.isdigit() for c in token), body[:1].isupper(),
                         core[-1:] in tuple(SENTENCE_ENDS)))
    return rows


def test_tokenize_meets_its_definition_across_chunk_edges_and_quote_runs(monkeypatch):
    import random

    from grist.features import chars

    monkeypatch.setattr(chars, "CHUNK", 7)  # code points read 7 at a time
    quoted = '"' * 12 + "Hi" + "”" * 11 + "!" + ")" * 10  # longer runs than the array steps
    pieces = ["ab", "Cd.", " ", "\n", "\u00a0", "«É", "1", quoted, "((((((((((x", ".", "|",
              "\U0001f600", "'", "?'", "", "字", "。", "ー", "゜", "「", "_"]
    rng = random.Random(7)
    for _ in range(300):
        texts = ["".join(rng.choice(pieces) for _ in range(rng.randint(0, 12)))
                 for _ in range(rng.randint(1, 5))]
        tok = chars.tokenize(texts)
        got = list(zip(tok.owner.tolist(), tok.length.tolist(), tok.word.tolist(),
                       tok.digit.tolist(), tok.first_upper.tolist(), tok.sentence_end.tolist()))
        assert got == _reference_tokens(texts), texts
        assert tok.full_stops.tolist() == [t.count(".") for t in texts]
        assert tok.bars.tolist() == [t.count("|") for t in texts]
        assert tok.counts.tolist() == [len(_reference_split(t)) for t in texts]


def test_whitespace_helpers_equal_str_split_on_huge_texts(monkeypatch):
    import random

    from grist import whitespace

    monkeypatch.setattr(whitespace, "HUGE_TEXT", 4)  # every text takes the chunked path
    rng = random.Random(3)
    for _ in range(2000):
        text = "".join(rng.choice(["a", "bc", " ", "\n", "\u3000", "\u00a0", "x" * 9, "字", "。"])
                       for _ in range(rng.randint(0, 25)))
        assert whitespace.collapse_spaces(text) == " ".join(text.split())
        assert whitespace.count_tokens(text) == len(_reference_split(text))
        assert "".join(whitespace.space_chunks(text)) == text


def test_date_words_are_found_through_the_punctuation_stripped_off_them():
    # block_features strips only tokens with punctuation (class bit PUNCT) first or last before
    # looking them up as date words: every character it strips must carry that bit
    from grist.features.chars import PUNCT, chars_of
    from grist.features.text import _DATE_PUNCTUATION

    assert all(int(f) & PUNCT for f in chars_of([_DATE_PUNCTUATION]).flags)
    blocks = [Block(text=t) for t in ("Posted (Monday), 12 March.", "Posted Monday 12 March",
                                      "Posted today by the editors")]
    dated = block_features(blocks).column("date_tokens")
    assert dated[0] == dated[1] > 0 and dated[2] == 0
