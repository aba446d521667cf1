/* Compiled scans of a page's source: the quick bound's counts and tag scans
 * (grist.html.structure), the control characters of the binary sniff (grist.html.sniff) and the
 * lone-surrogate check of loading (grist.html.load).
 *
 * The quick bound counts tags, tag names and attribute starts with regexes and NumPy; on a page
 * of 100 KB that is about a millisecond, and when its attribute bound is not enough the tag by
 * tag scan (``_attribute_scan``) takes ten. These functions compute the same figures over
 * the str's code points directly (any of CPython's 1, 2 or 4-byte kinds), with the patterns'
 * semantics spelt out below; the Python modules keep their regex versions as the reference
 * (used when this module was not built) and the tests compare the two.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>

/* Characters that end a tag name or an attribute name: HTML whitespace, "/" and ">". */
static inline int is_space(Py_UCS4 c) {
    return c == ' ' || c == '\t' || c == '\n' || c == '\f' || c == '\r';
}
static inline int is_letter(Py_UCS4 c) { return (c | 0x20) >= 'a' && (c | 0x20) <= 'z'; }
static inline int is_alnum(Py_UCS4 c) { return is_letter(c) || (c >= '0' && c <= '9'); }
static inline int ends_name(Py_UCS4 c) { return is_space(c) || c == '/' || c == '>'; }

typedef struct {
    int kind;
    const void *data;
    Py_ssize_t size;
} Text;

/* The scans are written once over `at`; each entry point expands them for the three kinds of
 * str, so that the compiler reads the characters without asking the kind each time. */
#if defined(__GNUC__)
#define INLINE static inline __attribute__((always_inline))
#else
#define INLINE static inline
#endif
INLINE Py_UCS4 at(const Text *t, Py_ssize_t i) { return PyUnicode_READ(t->kind, t->data, i); }

#define BY_KIND(source, t, call)                                                         \
    switch (PyUnicode_KIND(source)) {                                                   \
    case PyUnicode_1BYTE_KIND: {                                                        \
        const Text t = {PyUnicode_1BYTE_KIND, PyUnicode_DATA(source), PyUnicode_GET_LENGTH(source)}; \
        call;                                                                           \
        break;                                                                          \
    }                                                                                   \
    case PyUnicode_2BYTE_KIND: {                                                        \
        const Text t = {PyUnicode_2BYTE_KIND, PyUnicode_DATA(source), PyUnicode_GET_LENGTH(source)}; \
        call;                                                                           \
        break;                                                                          \
    }                                                                                   \
    default: {                                                                          \
        const Text t = {PyUnicode_4BYTE_KIND, PyUnicode_DATA(source), PyUnicode_GET_LENGTH(source)}; \
        call;                                                                           \
    }                                                                                   \
    }

/* The names whose start and end tags are counted one by one, lower-case ASCII. */
#define MAX_NAMES 64
#define MAX_NAME 16
typedef struct {
    Py_ssize_t count, length[MAX_NAMES];
    char name[MAX_NAMES][MAX_NAME];
    uint32_t initials[MAX_NAME]; /* per length, a bit per letter some name of it starts with */
} Names;

/* Which of the names the tag name at [a, b) is, ASCII case folded; -1 for none. Most tags
 * (div, span, li) are none, which their length and first letter alone tell. */
INLINE int which_name(const Text *t, const Names *names, Py_ssize_t a, Py_ssize_t b) {
    Py_ssize_t length = b - a;
    if (length >= MAX_NAME || !(names->initials[length] >> ((at(t, a) | 0x20) - 'a') & 1))
        return -1;
    char folded[MAX_NAME];
    for (Py_ssize_t i = 0; i < length; i++) folded[i] = (char)(at(t, a + i) | 0x20);
    for (Py_ssize_t k = 0; k < names->count; k++)
        if (names->length[k] == length && memcmp(names->name[k], folded, length) == 0) return (int)k;
    return -1;
}

/* What census() counts. */
typedef struct {
    Py_ssize_t opens, tags, starts, ends, attributes;
    Py_ssize_t named_starts[MAX_NAMES], named_ends[MAX_NAMES];
} Counts;

/* Latin-1 characters by what they do for an attribute start: AFTER (a space, "/" or a quote
 * may come before one), ENDS (a space, "/" or ">" is never one). */
#define AFTER 1
#define ENDS 2
static const unsigned char LATIN1[256] = {
    ['\t'] = AFTER | ENDS, ['\n'] = AFTER | ENDS, ['\f'] = AFTER | ENDS, ['\r'] = AFTER | ENDS,
    [' '] = AFTER | ENDS, ['/'] = AFTER | ENDS, ['"'] = AFTER, ['\''] = AFTER, ['>'] = ENDS,
};

/* Whether `c` starts an attribute after a character that `*after` says may come before one;
 * `*after` then says the same of `c`. */
#define LATIN1_OF(c) ((c) < 256 ? LATIN1[c] : 0)
INLINE unsigned attribute_start(Py_UCS4 c, unsigned *after) {
    unsigned does = LATIN1_OF(c);
    unsigned starts = *after & !(does & ENDS);
    *after = does & AFTER;
    return starts;
}

/* The attribute starts of the whole text (the first character never is one), one character at
 * a time. */
INLINE Py_ssize_t attribute_starts_of(const Text *t, Py_ssize_t from) {
    Py_ssize_t count = 0;
    unsigned after = from > 0 ? LATIN1_OF(at(t, from - 1)) & AFTER : 0;
    for (Py_ssize_t i = from; i < t->size; i++) count += attribute_start(at(t, i), &after);
    return count;
}

#if defined(__SSE2__)
#include <emmintrin.h>
/* The sum of the 16 bytes of v. */
static inline Py_ssize_t byte_sum(__m128i v) {
    __m128i sums = _mm_sad_epu8(v, _mm_setzero_si128());
    return _mm_cvtsi128_si32(sums) + _mm_extract_epi16(sums, 4);
}

/* The same count over 16 bytes (or 8 two-byte characters) at a time, with SSE2 (every x86-64
 * processor has it): a character starts an attribute when the one before it may come before
 * one and it is not a space, "/" or ">" itself. The rest of the text goes one by one. */
#define SPACED(eq, v)                                                                        \
    _mm_or_si128(_mm_or_si128(_mm_or_si128(eq(v, sp), eq(v, tab)), _mm_or_si128(eq(v, lf), eq(v, ff))), \
                 _mm_or_si128(eq(v, cr), eq(v, slash)))
#define COUNT_WIDE(type, set1, eq, bytes_per_char)                                             \
    do {                                                                                     \
        const type *c = t->data;                                                             \
        const __m128i sp = set1(' '), tab = set1('\t'), lf = set1('\n'), ff = set1('\f');     \
        const __m128i cr = set1('\r'), slash = set1('/'), dq = set1('"'), sq = set1('\'');    \
        const __m128i gt = set1('>');                                                         \
        const Py_ssize_t step = 16 / sizeof(type);                                            \
        __m128i bytes = _mm_setzero_si128(); /* per byte: how many (< 256) */                 \
        int rounds = 0;                                                                      \
        for (; i + step <= t->size; i += step) {                                              \
            __m128i now = _mm_loadu_si128((const __m128i *)(c + i));                          \
            __m128i before = _mm_loadu_si128((const __m128i *)(c + i - 1));                   \
            __m128i after = _mm_or_si128(SPACED(eq, before),                                  \
                                         _mm_or_si128(eq(before, dq), eq(before, sq)));       \
            __m128i never = _mm_or_si128(SPACED(eq, now), eq(now, gt));                       \
            bytes = _mm_sub_epi8(bytes, _mm_andnot_si128(never, after)); /* true: -1 */       \
            if (++rounds == 255) {                                                            \
                count += byte_sum(bytes);                                                     \
                bytes = _mm_setzero_si128();                                                  \
                rounds = 0;                                                                   \
            }                                                                                \
        }                                                                                    \
        count = (count + byte_sum(bytes)) / bytes_per_char;                                   \
    } while (0)

INLINE Py_ssize_t count_attribute_starts(const Text *t) {
    Py_ssize_t count = 0, i = 1;
    if (t->kind == PyUnicode_1BYTE_KIND) COUNT_WIDE(Py_UCS1, _mm_set1_epi8, _mm_cmpeq_epi8, 1);
    else if (t->kind == PyUnicode_2BYTE_KIND) COUNT_WIDE(Py_UCS2, _mm_set1_epi16, _mm_cmpeq_epi16, 2);
    else i = 0;
    return count + attribute_starts_of(t, i < t->size ? i : t->size);
}
#else
INLINE Py_ssize_t count_attribute_starts(const Text *t) { return attribute_starts_of(t, 0); }
#endif

/* Where the next "<" at or after `from` is (the text's size when there is none): memchr on
 * one-byte text, eight characters at a time on two-byte text (with SSE2). */
INLINE Py_ssize_t next_open(const Text *t, Py_ssize_t from) {
    if (from >= t->size) return t->size;
    if (t->kind == PyUnicode_1BYTE_KIND) {
        const Py_UCS1 *chars = t->data;
        const Py_UCS1 *found = memchr(chars + from, '<', (size_t)(t->size - from));
        return found != NULL ? found - chars : t->size;
    }
#if defined(__SSE2__)
    if (t->kind == PyUnicode_2BYTE_KIND) {
        const Py_UCS2 *chars = t->data;
        const __m128i open = _mm_set1_epi16('<');
        for (; from + 8 <= t->size; from += 8) {
            int found = _mm_movemask_epi8(
                _mm_cmpeq_epi16(_mm_loadu_si128((const __m128i *)(chars + from)), open));
            if (found) return from + (__builtin_ctz(found) >> 1);
        }
    }
#endif
    while (from < t->size && at(t, from) != '<') from++;
    return from;
}

INLINE void count_all(const Text *t, const Names *names, Counts *out) {
    out->attributes = count_attribute_starts(t);
    for (Py_ssize_t i = next_open(t, 0); i < t->size; i = next_open(t, i + 1)) {
        out->opens++;
        if (i + 1 >= t->size) continue;
        Py_UCS4 next = at(t, i + 1);
        if (!(is_letter(next) || next == '/' || next == '!')) continue;
        out->tags++;
        int closing = next == '/';
        Py_ssize_t a = i + 1 + closing;
        if (a >= t->size || !is_letter(at(t, a))) continue;
        Py_ssize_t b = a + 1;
        while (b < t->size && is_alnum(at(t, b))) b++;
        int k = which_name(t, names, a, b);
        if (closing) {
            out->ends++;
            if (k >= 0) out->named_ends[k]++;
        } else {
            out->starts++;
            if (k >= 0) out->named_starts[k]++;
        }
    }
}

/* census(source, names) -> (opens, tags, starts, ends, start_counts, end_counts, attributes)
 *
 * opens: "<" characters; tags: "<" followed by an ASCII letter, "/" or "!"
 * (what Limits.max_tags caps); starts / ends: matches of ``<(/?[a-zA-Z][a-zA-Z0-9]*)``
 * without / with the "/", and per name of ``names`` those whose name, ASCII lower-cased, is it;
 * attributes: characters after a space, "/" or a quote that are not a space, "/" or ">"
 * (``attribute_starts``). */
static PyObject *census(PyObject *Py_UNUSED(self), PyObject *args) {
    PyObject *source, *wanted;
    if (!PyArg_ParseTuple(args, "UO!", &source, &PyTuple_Type, &wanted)) return NULL;
    Names names = {0};
    names.count = PyTuple_GET_SIZE(wanted);
    if (names.count > MAX_NAMES) {
        PyErr_SetString(PyExc_ValueError, "too many names");
        return NULL;
    }
    for (Py_ssize_t k = 0; k < names.count; k++) {
        Py_ssize_t length;
        const char *name = PyUnicode_AsUTF8AndSize(PyTuple_GET_ITEM(wanted, k), &length);
        if (name == NULL) return NULL;
        if (length >= MAX_NAME) {
            PyErr_SetString(PyExc_ValueError, "name too long");
            return NULL;
        }
        memcpy(names.name[k], name, length);
        if (length > 0 && name[0] >= 'a' && name[0] <= 'z')
            names.initials[length] |= 1u << (name[0] - 'a');
        names.length[k] = length;
    }
    Counts counts = {0};
    BY_KIND(source, t, count_all(&t, &names, &counts));
    PyObject *by_start = PyTuple_New(names.count), *by_end = PyTuple_New(names.count);
    if (by_start == NULL || by_end == NULL) goto fail;
    for (Py_ssize_t k = 0; k < names.count; k++) {
        PyObject *s = PyLong_FromSsize_t(counts.named_starts[k]);
        PyObject *e = PyLong_FromSsize_t(counts.named_ends[k]);
        if (s == NULL || e == NULL) {
            Py_XDECREF(s);
            Py_XDECREF(e);
            goto fail;
        }
        PyTuple_SET_ITEM(by_start, k, s);
        PyTuple_SET_ITEM(by_end, k, e);
    }
    return Py_BuildValue("nnnnNNn", counts.opens, counts.tags, counts.starts, counts.ends,
                         by_start, by_end, counts.attributes);
fail:
    Py_XDECREF(by_start);
    Py_XDECREF(by_end);
    return NULL;
}

/* Where the next `quote` at or after `from` is, -1 for none; `memo` remembers the last answer
 * (positions only grow within a scan, so one search covers many unclosed quotes). */
typedef struct {
    Py_ssize_t from, found;
} Memo;

INLINE Py_ssize_t next_quote(const Text *t, Py_UCS4 quote, Py_ssize_t from, Memo *memo) {
    if (from >= memo->from && (memo->found < 0 || memo->found >= from)) return memo->found;
    Py_ssize_t i = from;
    while (i < t->size && at(t, i) != quote) i++;
    memo->from = from;
    memo->found = i < t->size ? i : -1;
    return memo->found;
}

/* grist.html.tokens.TAG_BODY from `p` (just after "<" or "</"): -1 when it does not match
 * (no letter at `p`, or the tag runs to the end of the input), else the position after its
 * ">", with its attribute text (group 3) at [*attrs_from, *attrs_to). The regex's possessive
 * runs make it a single forward pass: attributes follow one another until the next character
 * after the separators is "/", ">" or the end; a value is quoted only when its quote closes. */
INLINE Py_ssize_t match_tag(const Text *t, Py_ssize_t p, Memo *double_quote, Memo *single_quote,
                            Py_ssize_t *attrs_from, Py_ssize_t *attrs_to) {
    Py_ssize_t n = t->size;
    if (p >= n || !is_letter(at(t, p))) return -1;
    p++;
    while (p < n && !ends_name(at(t, p))) p++;
    *attrs_from = p;
    for (;;) {
        Py_ssize_t q = p;
        while (q < n && (is_space(at(t, q)) || at(t, q) == '/')) q++;
        if (q >= n || ends_name(at(t, q))) break;
        q++;
        while (q < n && !ends_name(at(t, q)) && at(t, q) != '=') q++;
        Py_ssize_t r = q;
        while (r < n && is_space(at(t, r))) r++;
        if (r < n && at(t, r) == '=') {
            r++;
            while (r < n && is_space(at(t, r))) r++;
            Py_UCS4 c = r < n ? at(t, r) : 0;
            Py_ssize_t close = -1;
            if (c == '"') close = next_quote(t, '"', r + 1, double_quote);
            else if (c == '\'') close = next_quote(t, '\'', r + 1, single_quote);
            if (close >= 0) {
                r = close + 1;
            } else {
                while (r < n && !is_space(at(t, r)) && at(t, r) != '>') r++;
            }
            q = r;
        }
        p = q;
    }
    *attrs_to = p;
    while (p < n && (is_space(at(t, p)) || at(t, p) == '/')) p++;
    return p < n ? p + 1 : -1; /* the loop stops only at ">" or the end */
}

/* A place where ``<(/?[a-zA-Z]...`` starts: "<", maybe "/", then a letter. */
INLINE int is_place(const Text *t, Py_ssize_t i) {
    if (at(t, i) != '<' || i + 1 >= t->size) return 0;
    Py_ssize_t a = i + 1 + (at(t, i + 1) == '/');
    return a < t->size && is_letter(at(t, a));
}

/* What the attribute scans add up: the longest attribute text, and the sum over tags of
 * (attribute starts + 1)^2, lexbor's comparisons bounded tag by tag. */
typedef struct {
    Py_ssize_t longest;
    long long squares;
} Attributes;

/* The attribute starts of [from, to) as ``_ATTRIBUTE_START`` finds them in " " + that text. */
INLINE Py_ssize_t attribute_starts_in(const Text *t, Py_ssize_t from, Py_ssize_t to) {
    Py_ssize_t count = 0;
    unsigned after = AFTER; /* the space before the text */
    for (Py_ssize_t i = from; i < to; i++) count += attribute_start(at(t, i), &after);
    return count;
}

/* Adds k^2 to the sum, which stops at LLONG_MAX (STARTS_SQUARED_MOST in Python). */
INLINE void add_square(Attributes *seen, long long k) {
    long long square = k * k;
    seen->squares = square > LLONG_MAX - seen->squares ? LLONG_MAX : seen->squares + square;
}

INLINE void add_tag(const Text *t, Py_ssize_t from, Py_ssize_t to, Attributes *seen) {
    if (to - from > seen->longest) seen->longest = to - from;
    add_square(seen, (long long)attribute_starts_in(t, from, to) + 1);
}

/* One pass of the tag pattern, tag after tag, from the start: how many tags it found, and their
 * attributes added to `seen`; with `started`, it marks where each tag began. */
INLINE Py_ssize_t tag_after_tag(const Text *t, Attributes *seen, unsigned char *started) {
    Memo dq = {PY_SSIZE_T_MAX, -1}, sq = {PY_SSIZE_T_MAX, -1};
    Py_ssize_t found = 0, from, to;
    for (Py_ssize_t i = 0; i < t->size;) {
        if (at(t, i) == '<' && i + 1 < t->size) {
            Py_ssize_t end = match_tag(t, i + 1 + (at(t, i + 1) == '/'), &dq, &sq, &from, &to);
            if (end >= 0) {
                found++;
                add_tag(t, from, to, seen);
                if (started != NULL) started[i] = 1;
                i = end;
                continue;
            }
            if (is_place(t, i)) break; /* a tag the input cuts: no tag of the pass after it */
        }
        i++;
    }
    return found;
}

/* The places no tag of the pass started at, each matched alone, added to `seen`; a tag the input
 * cuts holds everything after it: its attribute starts are at most the page's, `page_starts`, and
 * one more for the character after its name. Past the first such place every place is counted
 * so, unmatched: it holds no more than that, and matching each one alone would read to the end
 * again and again (time growing with the square of the page's length). */
INLINE void places_alone(const Text *t, const unsigned char *started, Py_ssize_t page_starts,
                         Attributes *seen) {
    Memo dq = {PY_SSIZE_T_MAX, -1}, sq = {PY_SSIZE_T_MAX, -1};
    Py_ssize_t from, to;
    int cut = 0;
    for (Py_ssize_t i = 0; i < t->size; i++) {
        if (started[i] || !is_place(t, i)) continue;
        if (!cut) {
            Py_ssize_t end = match_tag(t, i + 1 + (at(t, i + 1) == '/'), &dq, &sq, &from, &to);
            if (end >= 0) {
                add_tag(t, from, to, seen);
                continue;
            }
            cut = 1;
            if (t->size - i > seen->longest) seen->longest = t->size - i;
        }
        add_square(seen, (long long)page_starts + 2);
    }
}

/* attribute_scan(source, places, page_starts) -> (longest, squares):
 * grist.html.structure._attribute_scan. One pass of the tag pattern, tag after tag; when it did
 * not start a tag at every one of the `places` (a quote made one tag swallow the next), each
 * place it skipped is matched alone. */
static PyObject *attribute_scan(PyObject *Py_UNUSED(self), PyObject *args) {
    PyObject *source;
    Py_ssize_t places, page_starts, found = 0;
    Attributes seen = {0, 0};
    if (!PyArg_ParseTuple(args, "Unn", &source, &places, &page_starts)) return NULL;
    BY_KIND(source, t, found = tag_after_tag(&t, &seen, NULL));
    if (found != places) {
        unsigned char *started = PyMem_Calloc(PyUnicode_GET_LENGTH(source) + 1, 1);
        if (started == NULL) return PyErr_NoMemory();
        seen = (Attributes){0, 0};
        BY_KIND(source, t, tag_after_tag(&t, &seen, started);
                places_alone(&t, started, page_starts, &seen));
        PyMem_Free(started);
    }
    return Py_BuildValue("nL", seen.longest, seen.squares);
}

/* controls(text, start, end) -> int: the characters of text[start:end] that are C0 controls
 * other than tab, newlines and form feed, DEL or C1 controls (grist.html.sniff's noise). */
static PyObject *controls(PyObject *Py_UNUSED(self), PyObject *args) {
    PyObject *source;
    Py_ssize_t start, end, found = 0;
    if (!PyArg_ParseTuple(args, "Unn", &source, &start, &end)) return NULL;
    Py_ssize_t size = PyUnicode_GET_LENGTH(source);
    start = start < 0 ? 0 : start > size ? size : start;
    end = end < start ? start : end > size ? size : end;
    BY_KIND(source, t, for (Py_ssize_t i = start; i < end; i++) {
        Py_UCS4 c = at(&t, i);
        found += (c <= 0x08) | (c == 0x0b) | (c >= 0x0e && c <= 0x1f) | (c >= 0x7f && c <= 0x9f);
    });
    return PyLong_FromSsize_t(found);
}

#define SURROGATE_BLOCK 4096 /* characters tested between two looks at the result */

/* has_surrogates(text) -> bool: whether text holds a lone surrogate (U+D800 to U+DFFF). */
static PyObject *has_surrogates(PyObject *Py_UNUSED(self), PyObject *args) {
    PyObject *source;
    if (!PyArg_ParseTuple(args, "U", &source)) return NULL;
    int kind = PyUnicode_KIND(source);
    const void *data = PyUnicode_DATA(source);
    Py_ssize_t size = PyUnicode_GET_LENGTH(source);
    /* Blocks of characters are tested without an early exit, so that the compiler can test
     * many at once; a block that holds one ends the scan. */
    if (kind == PyUnicode_2BYTE_KIND) {
        const Py_UCS2 *chars = data;
        for (Py_ssize_t i = 0; i < size; i += SURROGATE_BLOCK) {
            Py_ssize_t end = size - i < SURROGATE_BLOCK ? size : i + SURROGATE_BLOCK;
            unsigned found = 0;
            for (Py_ssize_t j = i; j < end; j++) found |= (chars[j] & 0xF800) == 0xD800;
            if (found) Py_RETURN_TRUE;
        }
    } else if (kind == PyUnicode_4BYTE_KIND) {
        const Py_UCS4 *chars = data;
        for (Py_ssize_t i = 0; i < size; i += SURROGATE_BLOCK) {
            Py_ssize_t end = size - i < SURROGATE_BLOCK ? size : i + SURROGATE_BLOCK;
            unsigned found = 0;
            for (Py_ssize_t j = i; j < end; j++) found |= (chars[j] & 0xFFFFF800) == 0xD800;
            if (found) Py_RETURN_TRUE;
        }
    }
    Py_RETURN_FALSE; /* a 1-byte str holds Latin-1 only */
}

static PyMethodDef methods[] = {
    {"census", census, METH_VARARGS,
     "Tags, named start and end tags and attribute starts of a page (grist.html.structure)."},
    {"attribute_scan", attribute_scan, METH_VARARGS,
     "The longest attribute text any tag of a page may have, and the sum over its tags of "
     "(attribute starts + 1)^2 (grist.html.structure)."},
    {"controls", controls, METH_VARARGS,
     "Control characters in a slice of a text (grist.html.sniff)."},
    {"has_surrogates", has_surrogates, METH_VARARGS,
     "Whether a text holds a lone surrogate (grist.html.load)."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_scan", NULL, -1, methods, NULL, NULL,
                                    NULL, NULL};

PyMODINIT_FUNC PyInit__scan(void) { return PyModule_Create(&module); }
