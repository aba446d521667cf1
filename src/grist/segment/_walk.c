/* Compiled walk of grist.segment.blocks: the page's blocks and element table, in C.
 *
 * The same walk as segment_elements() in blocks.py, step for step: document order from node to
 * node, the open elements on a stack, a block ended by every block-level tag and by a run of
 * <br>, the context of its first visible text recorded on it, and the element table filled on
 * the way. Interpreting that walk was a fifth of auto's time on a page (docs/benchmarks/
 * auto-speed.md); here the per-node work (the plan of a tag, the open lists, the element rows,
 * the context handlers of grist.segment.context) runs in C, and only per-block or rare work
 * calls back into Python (making a Block, collapsing its text, the rarer attribute cases).
 *
 * It reads the selectolax nodes through their Python attributes, so it depends on no parser
 * header. blocks.py hands it each tag's plan as a tuple (walk_plan()) and the helpers; the
 * digest of benchmarks/segment_digest.py and tests/test_segment_compiled.py check that both
 * walks give the same blocks, marks, tables and element rows.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

/* Plan kinds and handler codes: blocks.walk_plan() and context.HANDLER_CODES. */
enum { TEXT_NODE = 0, SKIPPED = 1, LINE_BREAK = 2, ELEMENT = 3 };
enum { H_NONE = 0, H_REGION, H_LINK, H_INLINE, H_IMAGE, H_PRE, H_HEADING, H_LIST, H_QUOTE,
       H_TABLE, H_ROW, H_CELL, H_TABLE_PART, H_ITEM, H_DEFINITION_LIST, H_DEFINED };
/* Mark operations: grist.segment.inline's OPEN, CLOSE, POINT. */
enum { OP_OPEN = 1, OP_CLOSE = 2, OP_POINT = 3 };

static PyObject *s_tag_id, *s_tag, *s_next, *s_first_child, *s_text_content, *s_is_empty,
    *s_attributes, *s_id, *s_class, *s_link, *s_image, *s_empty, *s_space, *s_newline, *s_body,
    *s_page, *s_classes, *s_element, *s_text_nodes, *s_gt, *s_ellipsis, *s_segmentation,
    *s_check, *s_text, *s_marks, *s_anchor_chars, *s_anchor_words, *s_rows, *s_cols, *s_th,
    *s_head, *s_caption, *s_nested, *s_strip, *s_rstrip, *s_zero, *s_br;

/* A growable array of PyObject pointers; `owned` ones are released when popped or freed. */
typedef struct {
    PyObject **item;
    Py_ssize_t n, cap;
    int owned;
} Objects;

typedef struct {
    long *item;
    Py_ssize_t n, cap;
} Longs;

/* An open table: its id, current row and column, and what a data-table test reads, written
 * onto its TableInfo when it closes (nobody reads the info before the walk ends). */
typedef struct {
    long id, row, col, rows, cols, th;
    int head, caption, nested;
    PyObject *info;
    /* the cell's column in the laid-out grid, the rows and columns it spans there, the next
     * free column, and {column: the last row a cell spanning rows takes} (NULL until one does) */
    long long grid, span_rows, span_columns, cursor;
    PyObject *taken;
} Table;

/* An open list (_Open.items): its id, the next item's number and the step to the one after,
 * the open li's id and number (0 outside its items), whether it is an ol. */
typedef struct {
    long long list, next, step, item, number;
    int ordered;
} List;

typedef struct {
    List *item;
    Py_ssize_t n, cap;
} Lists;

/* An open definition list (_Open.definitions): its id, its dt and dd so far, the open one's
 * ordinal (0 outside them). */
typedef struct {
    long long list, count, entry;
} Definitions;

typedef struct {
    Definitions *item;
    Py_ssize_t n, cap;
} DefinitionLists;

/* An open element: what leaving it involves (from its plan) and its node. */
typedef struct {
    PyObject *detail, *node;
    int is_block, recorded, leave, flag;
} Open;

typedef struct {
    Table *item;
    Py_ssize_t n, cap;
} Tables;

typedef struct {
    Open *item;
    Py_ssize_t n, cap;
} Opens;

#define MAX_HIGH_DROPS 16

typedef struct {
    /* arguments */
    PyObject *plans, *known, *plan_for, *budget, *rows, *ends, *others;
    PyObject *block_type, *describe, *code_language, *new_table, *collapse, *drop_controls;
    PyObject *count_tokens;
    PyObject *too_many, *invisible, *list_numbering, *item_value, *cell_spans, *record_alone;
    int by_id, keep_classes;
    long min_br_run, nearest, path_depth, max_open_inline, check_every;
    Py_ssize_t huge_text;
    Py_UCS4 first_ideograph;
    Py_ssize_t max_blocks;
    /* whitespace.INVISIBLE as a table of its code points below 256 and a list of the others */
    unsigned char drops_low[256];
    Py_UCS4 drops_high[MAX_HIGH_DROPS];
    int high_drops;
    /* the blocks and the one being gathered */
    PyObject *blocks, *pieces, *marks, *start, *tag_counts, *info;
    long anchor_chars, anchor_words;
    int start_pre;
    PyObject *link;
    /* images met since the last block ended, before any text: (image, link or None); and the
     * images that stood in a block without text, waiting for record_alone() (blocks.py) */
    PyObject *loose, *alone;
    Objects open_marks; /* kinds of the inline elements open now (borrowed from plans) */
    long unmarked, brs, first_node, last_node, text_node, region_count, table_count;
    long long list_count, item_count, definition_list_count, span_slots;
    long anchors, pre, quotes;
    /* the context of the open elements */
    Objects path, classes, block_tags, lists, code_languages;
    Longs regions, headings, elements;
    Tables tables;
    Lists items;
    DefinitionLists definitions;
    Opens open;
} Walk;

static int grow(void **items, Py_ssize_t *cap, Py_ssize_t need, size_t size)
{
    if (need <= *cap)
        return 0;
    Py_ssize_t cap2 = *cap ? *cap * 2 : 16;
    while (cap2 < need)
        cap2 *= 2;
    void *grown = PyMem_Realloc(*items, (size_t)cap2 * size);
    if (grown == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    *items = grown;
    *cap = cap2;
    return 0;
}

/* Push a reference (a new one taken when the array owns its items). */
static int push(Objects *a, PyObject *item)
{
    if (grow((void **)&a->item, &a->cap, a->n + 1, sizeof(PyObject *)) < 0)
        return -1;
    if (a->owned)
        Py_INCREF(item);
    a->item[a->n++] = item;
    return 0;
}

static void pop(Objects *a)
{
    a->n--;
    if (a->owned)
        Py_DECREF(a->item[a->n]);
}

static void release(Objects *a)
{
    if (a->owned)
        while (a->n)
            pop(a);
    PyMem_Free(a->item);
}

static int push_long(Longs *a, long value)
{
    if (grow((void **)&a->item, &a->cap, a->n + 1, sizeof(long)) < 0)
        return -1;
    a->item[a->n++] = value;
    return 0;
}

/* Whether every character of a non-empty text is whitespace (str.isspace()). */
static int all_space(PyObject *text)
{
    Py_ssize_t n = PyUnicode_GET_LENGTH(text);
    int kind = PyUnicode_KIND(text);
    const void *data = PyUnicode_DATA(text);
    for (Py_ssize_t i = 0; i < n; i++)
        if (!Py_UNICODE_ISSPACE(PyUnicode_READ(kind, data, i)))
            return 0;
    return n > 0;
}

/* len(text.strip()) */
static Py_ssize_t stripped_length(PyObject *text)
{
    Py_ssize_t n = PyUnicode_GET_LENGTH(text), i = 0;
    int kind = PyUnicode_KIND(text);
    const void *data = PyUnicode_DATA(text);
    while (i < n && Py_UNICODE_ISSPACE(PyUnicode_READ(kind, data, i)))
        i++;
    while (n > i && Py_UNICODE_ISSPACE(PyUnicode_READ(kind, data, n - 1)))
        n--;
    return n - i;
}

/* Whether a text shows a character a reader sees (shows_a_character()): a printable one other
 * than the space. */
static int shows_a_character(PyObject *text)
{
    Py_ssize_t n = PyUnicode_GET_LENGTH(text);
    int kind = PyUnicode_KIND(text);
    const void *data = PyUnicode_DATA(text);
    for (Py_ssize_t i = 0; i < n; i++) {
        Py_UCS4 c = PyUnicode_READ(kind, data, i);
        if (Py_UNICODE_ISPRINTABLE(c) && !Py_UNICODE_ISSPACE(c))
            return 1;
    }
    return 0;
}

/* Fill the walk's tables of the characters a browser does not draw (whitespace.INVISIBLE).
 * -1 (ValueError) when it holds more characters from 256 on than the table has room for. */
static int read_drops(Walk *w)
{
    Py_ssize_t count = PyUnicode_GET_LENGTH(w->invisible);
    for (Py_ssize_t i = 0; i < count; i++) {
        Py_UCS4 c = PyUnicode_READ_CHAR(w->invisible, i);
        if (c < 256) {
            w->drops_low[c] = 1;
        } else if (w->high_drops < MAX_HIGH_DROPS) {
            w->drops_high[w->high_drops++] = c;
        } else {
            PyErr_SetString(PyExc_ValueError, "too many invisible characters from U+0100 on");
            return -1;
        }
    }
    return 0;
}

/* Whether a text holds one of the characters a browser does not draw (whitespace.INVISIBLE):
 * one pass, a table lookup a character. */
static int holds_invisible(Walk *w, PyObject *text)
{
    Py_ssize_t n = PyUnicode_GET_LENGTH(text);
    int kind = PyUnicode_KIND(text);
    const void *data = PyUnicode_DATA(text);
    if (kind == PyUnicode_1BYTE_KIND) {
        const Py_UCS1 *chars = data;
        for (Py_ssize_t i = 0; i < n; i++)
            if (w->drops_low[chars[i]])
                return 1;
        return 0;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        Py_UCS4 c = PyUnicode_READ(kind, data, i);
        if (c < 256) {
            if (w->drops_low[c])
                return 1;
            continue;
        }
        for (int k = 0; k < w->high_drops; k++)
            if (c == w->drops_high[k])
                return 1;
    }
    return 0;
}

/* A block's text with each whitespace run one space and its ends stripped (what
 * visible_text() gives): str.split() and join in C below huge_text characters, visible_text()
 * itself above them or when a character it drops is there (rare). */
static PyObject *collapse(Walk *w, PyObject *text)
{
    int in_python = PyUnicode_GET_LENGTH(text) >= w->huge_text ? 1 : holds_invisible(w, text);
    if (in_python < 0)
        return NULL;
    if (in_python)
        return PyObject_CallOneArg(w->collapse, text);
    PyObject *words = PyUnicode_Split(text, NULL, -1);
    if (words == NULL)
        return NULL;
    PyObject *joined = PyUnicode_Join(s_space, words);
    Py_DECREF(words);
    return joined;
}

/* How many words a text holds (count_tokens()): its whitespace-separated runs when it has no
 * character from the first ideograph block on, else count_tokens() itself (each ideograph is a
 * word). -1 on an error. */
static long count_tokens(Walk *w, PyObject *text)
{
    Py_ssize_t n = PyUnicode_GET_LENGTH(text);
    int kind = PyUnicode_KIND(text);
    const void *data = PyUnicode_DATA(text);
    long runs = 0;
    int space = 1;
    for (Py_ssize_t i = 0; i < n; i++) {
        Py_UCS4 c = PyUnicode_READ(kind, data, i);
        if (c >= w->first_ideograph) {
            PyObject *count = PyObject_CallOneArg(w->count_tokens, text);
            if (count == NULL)
                return -1;
            long value = PyLong_AsLong(count);
            Py_DECREF(count);
            return value;
        }
        if (Py_UNICODE_ISSPACE(c))
            space = 1;
        else if (space) {
            runs++;
            space = 0;
        }
    }
    return runs;
}

/* A tuple of the n new references given (all released when one is NULL or the tuple cannot
 * be made): Py_BuildValue reads its format string on every call, a cost the walk pays often. */
static PyObject *tuple_of(Py_ssize_t n, PyObject *const *items)
{
    PyObject *tuple = NULL;
    for (Py_ssize_t i = 0; i < n; i++)
        if (items[i] == NULL)
            goto fail;
    if ((tuple = PyTuple_New(n)) == NULL)
        goto fail;
    for (Py_ssize_t i = 0; i < n; i++)
        PyTuple_SET_ITEM(tuple, i, items[i]);
    return tuple;
fail:
    for (Py_ssize_t i = 0; i < n; i++)
        Py_XDECREF(items[i]);
    return NULL;
}

#define TUPLE(...) tuple_of(sizeof((PyObject *[]){__VA_ARGS__}) / sizeof(PyObject *), \
                            (PyObject *[]){__VA_ARGS__})

/* A mark (piece index, kind, element or None, op), appended to the block's marks. */
static int add_mark(Walk *w, Py_ssize_t at, PyObject *kind, PyObject *node, long op)
{
    PyObject *mark = TUPLE(PyLong_FromSsize_t(at), Py_NewRef(kind),
                           Py_NewRef(node ? node : Py_None), PyLong_FromLong(op));
    if (mark == NULL)
        return -1;
    int failed = PyList_Append(w->marks, mark);
    Py_DECREF(mark);
    return failed;
}

/* Drop the block being gathered (made into a Block or not). */
static void forget_block(Walk *w)
{
    Py_CLEAR(w->start);
    Py_CLEAR(w->tag_counts);
    Py_CLEAR(w->info);
    Py_CLEAR(w->pieces);
    Py_CLEAR(w->marks);
}

/* Start a new, still empty block; inline elements open now continue into it. */
static int reset(Walk *w)
{
    forget_block(w);
    w->pieces = PyList_New(0);
    w->marks = PyList_New(0);
    if (w->pieces == NULL || w->marks == NULL)
        return -1;
    for (Py_ssize_t i = 0; i < w->open_marks.n; i++)
        if (add_mark(w, 0, w->open_marks.item[i], NULL, OP_OPEN) < 0)
            return -1;
    if (w->link != NULL && add_mark(w, 0, s_link, w->link, OP_OPEN) < 0)
        return -1;
    return 0;
}

/* The innermost `nearest` open elements' words, innermost first, empty ones left out. */
static PyObject *nearest_words(Walk *w)
{
    PyObject *words = PyList_New(0);
    if (words == NULL)
        return NULL;
    for (Py_ssize_t i = w->classes.n - 1; i >= 0 && i >= w->classes.n - w->nearest; i--) {
        PyObject *said = w->classes.item[i];
        if (PyUnicode_GET_LENGTH(said) && PyList_Append(words, said) < 0) {
            Py_DECREF(words);
            return NULL;
        }
    }
    PyObject *joined = PyUnicode_Join(s_space, words);
    Py_DECREF(words);
    return joined;
}

/* The path of the open elements joined by ">", its outer part "…" past `path_depth`. */
static PyObject *path_text(Walk *w)
{
    Py_ssize_t from = w->path.n > w->path_depth ? w->path.n - w->path_depth : 0;
    PyObject *parts = PyList_New(0);
    if (parts == NULL)
        return NULL;
    if (from && PyList_Append(parts, s_ellipsis) < 0)
        goto fail;
    for (Py_ssize_t i = from; i < w->path.n; i++)
        if (PyList_Append(parts, w->path.item[i]) < 0)
            goto fail;
    PyObject *joined = PyUnicode_Join(s_gt, parts);
    Py_DECREF(parts);
    return joined;
fail:
    Py_DECREF(parts);
    return NULL;
}

/* The table cell open now as Block.cell says it, or None outside cells (_cell()); a new
 * reference. */
static PyObject *cell_now(Walk *w)
{
    Table *table = w->tables.n ? &w->tables.item[w->tables.n - 1] : NULL;
    if (table == NULL || table->col < 0)
        return Py_NewRef(Py_None);
    return TUPLE(PyLong_FromLong(table->id), PyLong_FromLong(table->row),
                 PyLong_FromLongLong(table->grid), PyLong_FromLongLong(table->span_rows),
                 PyLong_FromLongLong(table->span_columns));
}

/* The list item open now as Block.list_item says it, or None outside lists (_list_item()); a
 * new reference. */
static PyObject *item_now(Walk *w)
{
    if (!w->items.n)
        return Py_NewRef(Py_None);
    List *list = &w->items.item[w->items.n - 1];
    return TUPLE(PyLong_FromLongLong(list->list), PyLong_FromLongLong(list->item),
                 PyLong_FromLongLong(list->number));
}

/* The term or definition open now as Block.definition says it, or None outside dls
 * (_definition()); a new reference. */
static PyObject *definition_now(Walk *w)
{
    if (!w->definitions.n)
        return Py_NewRef(Py_None);
    Definitions *list = &w->definitions.item[w->definitions.n - 1];
    return TUPLE(PyLong_FromLongLong(list->list), PyLong_FromLongLong(list->entry));
}

/* Make the block at its first visible text, with the context it starts in (_begin()); the
 * images met before it are its own. */
static int begin(Walk *w)
{
    if (PyList_SetSlice(w->loose, 0, PyList_GET_SIZE(w->loose), NULL) < 0)
        return -1;
    Table *table = w->tables.n ? &w->tables.item[w->tables.n - 1] : NULL;
    int in_cell = table != NULL && table->col >= 0;
    PyObject *cell = NULL, *info = NULL, *args = NULL, *item = NULL, *definition = NULL;
    PyObject *path = path_text(w);
    if (path == NULL)
        return -1;
    if ((cell = cell_now(w)) == NULL || (item = item_now(w)) == NULL
        || (definition = definition_now(w)) == NULL)
        goto fail;
    info = PyDict_New();
    if (info == NULL)
        goto fail;
    if (w->keep_classes) {
        PyObject *words = nearest_words(w);
        PyObject *element = PyLong_FromLong(w->elements.item[w->elements.n - 1]);
        int failed = words == NULL || element == NULL
            || PyDict_SetItem(info, s_classes, words) < 0
            || PyDict_SetItem(info, s_element, element) < 0;
        Py_XDECREF(words);
        Py_XDECREF(element);
        if (failed)
            goto fail;
    }
    w->tag_counts = PyDict_New();
    if (w->tag_counts == NULL)
        goto fail;
    PyObject *language = w->pre && w->code_languages.n
        ? w->code_languages.item[w->code_languages.n - 1] : s_empty;
    PyObject *tag = w->block_tags.n ? w->block_tags.item[w->block_tags.n - 1] : s_body;
    args = TUPLE( /* Block's fields in order */
        Py_NewRef(s_empty), Py_NewRef(tag),
        Py_NewRef(path), PyLong_FromSsize_t(w->path.n), PyLong_FromLong(0), PyLong_FromLong(0),
        Py_NewRef(w->tag_counts), PyLong_FromSsize_t(PyList_GET_SIZE(w->blocks)),
        PyLong_FromLong(w->regions.item[w->regions.n - 1]),
        PyLong_FromLong(w->headings.n ? w->headings.item[w->headings.n - 1] : 0),
        Py_NewRef(w->lists.n ? w->lists.item[w->lists.n - 1] : s_empty),
        PyLong_FromSsize_t(w->lists.n), Py_NewRef(item), Py_NewRef(definition),
        Py_NewRef(cell),
        PyBool_FromLong(w->pre > 0),
        Py_NewRef(language), PyLong_FromLong(w->quotes), Py_NewRef(Py_None),
        Py_NewRef(in_cell ? table->info : Py_None), Py_NewRef(Py_None), Py_NewRef(Py_None),
        Py_NewRef(Py_None), Py_NewRef(Py_None), Py_NewRef(s_page), Py_NewRef(info));
    if (args == NULL)
        goto fail;
    w->start = PyObject_Call(w->block_type, args, NULL);
    if (w->start == NULL)
        goto fail;
    w->info = info;
    w->start_pre = w->pre > 0;
    w->anchor_chars = w->anchor_words = 0;
    Py_DECREF(args);
    Py_DECREF(path);
    Py_DECREF(item);
    Py_DECREF(definition);
    Py_DECREF(cell);
    return 0;
fail:
    Py_XDECREF(args);
    Py_XDECREF(info);
    Py_XDECREF(item);
    Py_XDECREF(definition);
    Py_DECREF(path);
    Py_XDECREF(cell);
    return -1;
}

/* The images met since the last block ended stood in a block without text: keep them, with the
 * list item, table cell and quote depth they were in, for record_alone() (_set_aside()). */
static int set_aside(Walk *w)
{
    PyObject *item = item_now(w), *cell = item == NULL ? NULL : cell_now(w);
    int failed = cell == NULL;
    for (Py_ssize_t i = 0; !failed && i < PyList_GET_SIZE(w->loose); i++) {
        PyObject *met = PyList_GET_ITEM(w->loose, i);
        PyObject *image = TUPLE(Py_NewRef(PyTuple_GET_ITEM(met, 0)),
                                Py_NewRef(PyTuple_GET_ITEM(met, 1)), Py_NewRef(item),
                                Py_NewRef(cell), PyLong_FromLong(w->quotes));
        failed = image == NULL || PyList_Append(w->alone, image) < 0;
        Py_XDECREF(image);
    }
    Py_XDECREF(item);
    Py_XDECREF(cell);
    if (failed)
        return -1;
    if (PyList_SetSlice(w->loose, 0, PyList_GET_SIZE(w->loose), NULL) < 0)
        return -1;
    return reset(w);
}

/* record_alone(alone, blocks, after, marks) */
static int record_alone(Walk *w, PyObject *after, PyObject *marks)
{
    PyObject *done = PyObject_CallFunctionObjArgs(w->record_alone, w->alone, w->blocks, after,
                                                  marks, NULL);
    Py_XDECREF(done);
    return done == NULL ? -1 : 0;
}

/* Give the block being kept its marks, when it has some (spans are computed when asked). */
static int set_marks(Walk *w)
{
    if (w->start_pre || !PyList_GET_SIZE(w->marks))
        return 0;
    PyObject *marks = PyTuple_Pack(2, w->pieces, w->marks);
    int failed = marks == NULL || PyObject_SetAttr(w->start, s_marks, marks) < 0;
    Py_XDECREF(marks);
    return failed ? -1 : 0;
}

/* End the current block; keep it if it shows a character, with the images that stood alone
 * before it (record_alone(); flush()). Without a block, the images met since the last one stood
 * alone. */
static int flush(Walk *w)
{
    if (w->start == NULL)
        return PyList_GET_SIZE(w->loose) ? set_aside(w) : 0;
    PyObject *text = NULL, *joined = PyUnicode_Join(s_empty, w->pieces);
    if (joined == NULL)
        return -1;
    if (w->start_pre) {
        PyObject *cut = PyObject_CallMethodOneArg(joined, s_strip, s_newline);
        if (cut != NULL) {
            text = PyObject_CallMethodNoArgs(cut, s_rstrip);
            Py_DECREF(cut);
        }
        if (text != NULL && holds_invisible(w, text)) {  /* (rare: then drop the controls) */
            Py_SETREF(text, PyObject_CallOneArg(w->drop_controls, text));
        }
    }
    else
        text = collapse(w, joined);
    Py_DECREF(joined);
    if (text == NULL)
        return -1;
    int keep = shows_a_character(text);
    if (keep > 0) {
        Py_ssize_t length = PyUnicode_GET_LENGTH(text);
        PyObject *chars = PyLong_FromSsize_t(w->anchor_chars > length ? length : w->anchor_chars);
        PyObject *words = PyLong_FromLong(w->anchor_words);
        PyObject *nodes = TUPLE(PyLong_FromLong(w->first_node), PyLong_FromLong(w->last_node));
        if (chars == NULL || words == NULL || nodes == NULL
            || PyObject_SetAttr(w->start, s_text, text) < 0
            || PyObject_SetAttr(w->start, s_anchor_chars, chars) < 0
            || PyObject_SetAttr(w->start, s_anchor_words, words) < 0
            || PyDict_SetItem(w->info, s_text_nodes, nodes) < 0
            || (PyList_GET_SIZE(w->alone) && record_alone(w, w->start, w->marks) < 0)
            || set_marks(w) < 0 || PyList_Append(w->blocks, w->start) < 0)
            keep = -1;
        Py_XDECREF(chars);
        Py_XDECREF(words);
        Py_XDECREF(nodes);
        if (keep > 0 && w->max_blocks >= 0 && PyList_GET_SIZE(w->blocks) > w->max_blocks) {
            PyErr_Format(w->too_many,
                         "the page has more than %zd text blocks (Limits.max_blocks)",
                         w->max_blocks);
            keep = -1;
        }
    }
    Py_DECREF(text);
    if (keep < 0)
        return -1;
    return reset(w);
}

static int line_break(Walk *w)
{
    w->brs++;
    if (w->brs >= w->min_br_run) {
        if (flush(w) < 0)
            return -1;
        w->brs = w->min_br_run; /* stay in the run until visible text comes */
        return 0;
    }
    if (w->start == NULL)
        return 0;
    if (w->pre)
        return PyList_Append(w->pieces, s_newline);
    /* where the line breaks: renderers write a line break there (grist.render.inline) */
    if (add_mark(w, PyList_GET_SIZE(w->pieces), s_br, NULL, OP_POINT) < 0)
        return -1;
    return PyList_Append(w->pieces, s_space);
}

/* A text node: visible text joins the block open now or begins one. */
static int text_node(Walk *w, PyObject *node)
{
    w->text_node++;
    if (w->start == NULL) {
        PyObject *empty = PyObject_GetAttr(node, s_is_empty);
        if (empty == NULL)
            return -1;
        int is_empty = PyObject_IsTrue(empty);
        Py_DECREF(empty);
        if (is_empty)
            return is_empty < 0 ? -1 : 0;
    }
    PyObject *raw = PyObject_GetAttr(node, s_text_content);
    if (raw == NULL)
        return -1;
    int failed = 0;
    if (PyUnicode_Check(raw) && PyUnicode_GET_LENGTH(raw)) {
        if (!all_space(raw)) {
            if (w->start == NULL) {
                failed = begin(w);
                w->first_node = w->text_node;
            }
            w->brs = 0;
            w->last_node = w->text_node;
            if (!failed)
                failed = PyList_Append(w->pieces, raw);
            if (!failed && w->anchors) {
                w->anchor_chars += (long)stripped_length(raw);
                long count = count_tokens(w, raw);
                if (count < 0)
                    failed = -1;
                else
                    w->anchor_words += count;
            }
        }
        else if (w->start != NULL)
            failed = PyList_Append(w->pieces, raw);
    }
    Py_DECREF(raw);
    return failed;
}

/* What an element's attributes say (describe()): the id and class words at once when it has
 * no other attribute describe() reads, else describe() itself. New reference to words. */
static int element_words(Walk *w, PyObject *node, PyObject **words, int *hidden)
{
    PyObject *attrs = PyObject_GetAttr(node, s_attributes);
    if (attrs == NULL)
        return -1;
    *hidden = 0;
    if (!PyDict_Check(attrs) || PyDict_GET_SIZE(attrs) == 0) {
        *words = Py_NewRef(s_empty);
        Py_DECREF(attrs);
        return 0;
    }
    PyObject *key, *value;
    Py_ssize_t pos = 0;
    int plain = 1;
    while (plain && PyDict_Next(attrs, &pos, &key, &value)) {
        int other = PySet_Contains(w->others, key);
        if (other < 0) {
            Py_DECREF(attrs);
            return -1;
        }
        plain = !other;
    }
    if (!plain) {
        PyObject *said = PyObject_CallOneArg(w->describe, attrs);
        Py_DECREF(attrs);
        if (said == NULL)
            return -1;
        *words = Py_NewRef(PyTuple_GET_ITEM(said, 0));
        *hidden = PyObject_IsTrue(PyTuple_GET_ITEM(said, 1));
        Py_DECREF(said);
        return 0;
    }
    PyObject *name = PyDict_GetItemWithError(attrs, s_id);
    PyObject *cls = name || !PyErr_Occurred() ? PyDict_GetItemWithError(attrs, s_class) : NULL;
    if (PyErr_Occurred()) {
        Py_DECREF(attrs);
        return -1;
    }
    int has_name = name != NULL && PyObject_IsTrue(name) > 0;
    int has_cls = cls != NULL && PyObject_IsTrue(cls) > 0;
    if (has_name && has_cls)
        *words = PyUnicode_FromFormat("%U %U", name, cls);
    else
        *words = Py_NewRef(has_name ? name : has_cls ? cls : s_empty);
    Py_DECREF(attrs);
    return *words == NULL ? -1 : 0;
}

/* A code element's language (code_language(node.attributes)). */
static PyObject *language_of(Walk *w, PyObject *node)
{
    PyObject *attrs = PyObject_GetAttr(node, s_attributes);
    if (attrs == NULL)
        return NULL;
    PyObject *language = PyObject_CallOneArg(w->code_language, attrs);
    Py_DECREF(attrs);
    return language;
}

static int enter_region(Walk *w)
{
    return push_long(&w->regions, ++w->region_count);
}

/* The two integers a helper of grist.segment.context says of a node. */
static int read_pair(PyObject *helper, PyObject *node, long long *first, long long *second)
{
    PyObject *pair = PyObject_CallOneArg(helper, node);
    if (pair == NULL)
        return -1;
    int failed = !PyArg_ParseTuple(pair, "LL", first, second);
    Py_DECREF(pair);
    return failed ? -1 : 0;
}

/* A list opens (_enter_list): an ol's numbering is read by list_numbering(). */
static int enter_list(Walk *w, PyObject *tag, int ordered, PyObject *node)
{
    long long start = 1, step = 1;
    if (ordered && read_pair(w->list_numbering, node, &start, &step) < 0)
        return -1;
    if (grow((void **)&w->items.item, &w->items.cap, w->items.n + 1, sizeof(List)) < 0)
        return -1;
    if (push(&w->lists, tag) < 0)
        return -1;
    List *list = &w->items.item[w->items.n++];
    list->list = ++w->list_count;
    list->next = start;
    list->step = step;
    list->item = list->number = 0;
    list->ordered = ordered;
    return 0;
}

/* An li of the innermost open list takes its number (_enter_item): an ol's li may say it. */
static int enter_item(Walk *w, List *list, PyObject *node)
{
    long long number = list->next;
    if (list->ordered) {
        PyObject *value = PyObject_CallOneArg(w->item_value, node);
        if (value == NULL)
            return -1;
        if (value != Py_None)
            number = PyLong_AsLongLong(value);
        Py_DECREF(value);
        if (number == -1 && PyErr_Occurred())
            return -1;
    }
    list->next = number + list->step;
    list->item = ++w->item_count;
    list->number = number;
    return 0;
}

/* The last row a cell spanning rows takes in a column, -1 when none does. */
static int taken_until(PyObject *taken, long long column, long long *last)
{
    PyObject *key = PyLong_FromLongLong(column);
    if (key == NULL)
        return -1;
    PyObject *found = PyDict_GetItemWithError(taken, key);
    Py_DECREF(key);
    if (found == NULL)
        return PyErr_Occurred() ? -1 : (*last = -1, 0);
    *last = PyLong_AsLongLong(found);
    return *last == -1 && PyErr_Occurred() ? -1 : 0;
}

/* A cell's place in the laid-out grid (_enter_cell): the first column from the row's next
 * free one that no cell spanning rows from above takes; cell_spans() reads its spans. */
static int place_cell(Walk *w, Table *table, PyObject *node)
{
    long long rows, columns;
    if (read_pair(w->cell_spans, node, &rows, &columns) < 0)
        return -1;
    long long column = table->cursor, last;
    while (table->taken != NULL && w->span_slots) {
        if (taken_until(table->taken, column, &last) < 0)
            return -1;
        if (last < table->row)
            break;
        column++;
        w->span_slots--;
    }
    table->grid = column;
    table->cursor = column + columns;
    table->span_columns = columns;
    table->span_rows = 1;
    if (rows < 2 || columns > w->span_slots)
        return 0;
    table->span_rows = rows;
    w->span_slots -= columns;
    if (table->taken == NULL && (table->taken = PyDict_New()) == NULL)
        return -1;
    last = table->row + rows - 1;
    for (long long c = column; c < column + columns; c++) {
        long long before;
        if (taken_until(table->taken, c, &before) < 0)
            return -1;
        if (before >= last)
            continue;
        PyObject *key = PyLong_FromLongLong(c), *value = PyLong_FromLongLong(last);
        int failed = key == NULL || value == NULL || PyDict_SetItem(table->taken, key, value) < 0;
        Py_XDECREF(key);
        Py_XDECREF(value);
        if (failed)
            return -1;
    }
    return 0;
}

/* The context handlers of grist.segment.context, entering an element. */
static int enter(Walk *w, int code, PyObject *tag, PyObject *detail, int flag, PyObject *node)
{
    Table *top = w->tables.n ? &w->tables.item[w->tables.n - 1] : NULL;
    switch (code) {
    case H_REGION:
        return enter_region(w);
    case H_LINK:
        w->anchors++;
        if (!w->pre) { /* links do not nest: the tree builder closes an open one */
            Py_XSETREF(w->link, Py_NewRef(node));
            return add_mark(w, PyList_GET_SIZE(w->pieces), s_link, node, OP_OPEN);
        }
        return 0;
    case H_INLINE:
        if (!w->pre) {
            if (w->open_marks.n >= w->max_open_inline) {
                w->unmarked++;
                return 0;
            }
            if (push(&w->open_marks, detail) < 0)
                return -1;
            return add_mark(w, PyList_GET_SIZE(w->pieces), detail, NULL, OP_OPEN);
        }
        if (flag) { /* a code element: its language, else the enclosing one's */
            PyObject *language = language_of(w, node);
            if (language == NULL)
                return -1;
            if (!PyObject_IsTrue(language) && w->code_languages.n)
                Py_SETREF(language, Py_NewRef(w->code_languages.item[w->code_languages.n - 1]));
            else if (!PyObject_IsTrue(language))
                Py_SETREF(language, Py_NewRef(s_empty));
            int failed = push(&w->code_languages, language);
            Py_DECREF(language);
            return failed;
        }
        return 0;
    case H_IMAGE: /* before any text, it may stand in a block without text (w->loose) */
        if (add_mark(w, PyList_GET_SIZE(w->pieces), s_image, node, OP_POINT) < 0)
            return -1;
        if (w->start == NULL) {
            PyObject *met = TUPLE(Py_NewRef(node), Py_NewRef(w->link ? w->link : Py_None));
            int failed = met == NULL || PyList_Append(w->loose, met) < 0;
            Py_XDECREF(met);
            return failed ? -1 : 0;
        }
        return 0;
    case H_PRE: {
        w->pre++;
        PyObject *language = language_of(w, node);
        if (language == NULL)
            return -1;
        int failed = push(&w->code_languages, language);
        Py_DECREF(language);
        return failed;
    }
    case H_HEADING:
        return push_long(&w->headings, PyLong_AsLong(detail));
    case H_LIST:
        return enter_list(w, tag, flag, node);
    case H_ITEM:
        return w->items.n ? enter_item(w, &w->items.item[w->items.n - 1], node) : 0;
    case H_DEFINITION_LIST: {
        if (grow((void **)&w->definitions.item, &w->definitions.cap, w->definitions.n + 1,
                 sizeof(Definitions)) < 0)
            return -1;
        Definitions *list = &w->definitions.item[w->definitions.n++];
        list->list = ++w->definition_list_count;
        list->count = list->entry = 0;
        return 0;
    }
    case H_DEFINED: /* a dt or dd is the next of the innermost open dl (_enter_defined) */
        if (w->definitions.n) {
            Definitions *list = &w->definitions.item[w->definitions.n - 1];
            list->entry = ++list->count;
        }
        return 0;
    case H_QUOTE:
        w->quotes++;
        return 0;
    case H_TABLE: {
        if (grow((void **)&w->tables.item, &w->tables.cap, w->tables.n + 1, sizeof(Table)) < 0)
            return -1;
        top = w->tables.n ? &w->tables.item[w->tables.n - 1] : NULL;
        w->table_count++;
        PyObject *info = PyObject_CallFunction(w->new_table, "lO", w->table_count, node);
        if (info == NULL)
            return -1;
        if (top != NULL)
            top->nested = 1;
        Table *table = &w->tables.item[w->tables.n++];
        memset(table, 0, sizeof(Table));
        table->id = w->table_count;
        table->row = table->col = -1;
        table->info = info;
        return enter_region(w);
    }
    case H_ROW:
        if (top != NULL) {
            top->row++;
            top->col = -1;
            top->cursor = 0;
            top->rows++;
        }
        return 0;
    case H_CELL:
        if (top != NULL) {
            top->col++;
            if (top->cols < top->col + 1)
                top->cols = top->col + 1;
            if (flag)
                top->th++;
            if (place_cell(w, top, node) < 0)
                return -1;
        }
        return enter_region(w);
    case H_TABLE_PART:
        if (top != NULL) {
            if (flag)
                top->caption = 1;
            else
                top->head = 1;
        }
        return 0;
    }
    return 0;
}

/* Write what the walk saw of a table onto its TableInfo and forget it. */
static int close_table(Walk *w)
{
    Table *t = &w->tables.item[--w->tables.n];
    PyObject *info = t->info;
    const struct { PyObject *name; long value; int flag; } fields[] = {
        {s_rows, t->rows, 0}, {s_cols, t->cols, 0}, {s_th, t->th, 0},
        {s_head, t->head, 1}, {s_caption, t->caption, 1}, {s_nested, t->nested, 1},
    };
    int failed = 0;
    for (size_t i = 0; !failed && i < sizeof fields / sizeof fields[0]; i++) {
        PyObject *value = fields[i].flag ? Py_NewRef(fields[i].value ? Py_True : Py_False)
                                         : PyLong_FromLong(fields[i].value);
        failed = value == NULL || PyObject_SetAttr(info, fields[i].name, value) < 0;
        Py_XDECREF(value);
    }
    Py_DECREF(info);
    Py_XDECREF(t->taken);
    return failed ? -1 : 0;
}

/* The context handlers, leaving an element. */
static int leave(Walk *w, int code, PyObject *detail, int flag)
{
    switch (code) {
    case H_REGION:
        w->regions.n--;
        return 0;
    case H_LINK:
        w->anchors--;
        if (!w->pre) {
            Py_CLEAR(w->link);
            return add_mark(w, PyList_GET_SIZE(w->pieces), s_link, NULL, OP_CLOSE);
        }
        return 0;
    case H_INLINE:
        if (!w->pre) {
            if (w->unmarked) { /* elements are left in the reverse order they were entered */
                w->unmarked--;
                return 0;
            }
            for (Py_ssize_t j = w->open_marks.n - 1; j >= 0; j--)
                if (w->open_marks.item[j] == detail
                    || PyUnicode_Compare(w->open_marks.item[j], detail) == 0) {
                    memmove(&w->open_marks.item[j], &w->open_marks.item[j + 1],
                            (size_t)(w->open_marks.n - j - 1) * sizeof(PyObject *));
                    w->open_marks.n--;
                    break;
                }
            return add_mark(w, PyList_GET_SIZE(w->pieces), detail, NULL, OP_CLOSE);
        }
        if (flag)
            pop(&w->code_languages);
        return 0;
    case H_PRE:
        w->pre--;
        pop(&w->code_languages);
        return 0;
    case H_HEADING:
        w->headings.n--;
        return 0;
    case H_LIST:
        pop(&w->lists);
        w->items.n--;
        return 0;
    case H_ITEM:
        if (w->items.n) /* text after it and before the next li is in the list, in no item */
            w->items.item[w->items.n - 1].item = w->items.item[w->items.n - 1].number = 0;
        return 0;
    case H_DEFINITION_LIST:
        w->definitions.n--;
        return 0;
    case H_DEFINED: /* text after it and before the next dt or dd is in the list, in neither */
        if (w->definitions.n)
            w->definitions.item[w->definitions.n - 1].entry = 0;
        return 0;
    case H_QUOTE:
        w->quotes--;
        return 0;
    case H_TABLE:
        w->regions.n--;
        return close_table(w);
    }
    return 0;
}

/* The plan of a node: its tag's, looked up by tag id (or tag) and worked out once per key. */
static PyObject *plan_of(Walk *w, PyObject *node)
{
    PyObject *key = PyObject_GetAttr(node, w->by_id ? s_tag_id : s_tag);
    if (key == NULL)
        return NULL;
    PyObject *plan = PyDict_GetItemWithError(w->plans, key);
    if (plan == NULL && !PyErr_Occurred()) {
        PyObject *tag = w->by_id ? PyObject_GetAttr(node, s_tag) : Py_NewRef(key);
        if (tag != NULL) {
            plan = PyObject_CallOneArg(w->plan_for, tag);
            Py_DECREF(tag);
        }
        if (plan != NULL) {
            int failed = PyDict_SetItem(w->plans, key, plan);
            if (!failed && w->by_id) { /* lexbor's own tag ids are the same on every page */
                long id = PyLong_AsLong(key);
                if (id == -1 && PyErr_Occurred())
                    failed = -1;
                else if (id < (1L << 16))
                    failed = PyDict_SetItem(w->known, key, plan);
            }
            Py_DECREF(plan); /* the dict holds it */
            if (failed)
                plan = NULL;
        }
    }
    Py_DECREF(key);
    if (plan != NULL && !(PyTuple_Check(plan) && PyTuple_GET_SIZE(plan) == 8)) {
        PyErr_SetString(PyExc_TypeError, "a walk plan is a tuple of 8 items");
        return NULL;
    }
    return plan;
}

#define FIELD(plan, i) PyTuple_GET_ITEM(plan, i)
#define FLAG(plan, i) (FIELD(plan, i) == Py_True)
#define CODE(plan, i) ((int)PyLong_AsLong(FIELD(plan, i)))

/* Enter an element: end the block if it splits blocks, record its row, run its handler. */
static int enter_element(Walk *w, PyObject *plan, PyObject *node)
{
    PyObject *tag = FIELD(plan, 1);
    int is_block = FLAG(plan, 2), recorded = FLAG(plan, 3);
    if (is_block) {
        if ((w->start != NULL || PyList_GET_SIZE(w->loose)) && flush(w) < 0)
            return -1;
        if (push(&w->block_tags, tag) < 0)
            return -1;
    }
    else if (w->start != NULL) {
        PyObject *count = PyDict_GetItemWithError(w->tag_counts, tag);
        if (count == NULL && PyErr_Occurred())
            return -1;
        PyObject *more = PyLong_FromLong(count == NULL ? 1 : PyLong_AsLong(count) + 1);
        if (more == NULL || PyDict_SetItem(w->tag_counts, tag, more) < 0) {
            Py_XDECREF(more);
            return -1;
        }
        Py_DECREF(more);
    }
    if (push(&w->path, tag) < 0)
        return -1;
    if (recorded) {
        PyObject *words;
        int hidden;
        if (element_words(w, node, &words, &hidden) < 0)
            return -1;
        if (w->pre) /* (the code's syntax highlighting: hljs-comment, token tag) */
            Py_SETREF(words, Py_NewRef(s_empty));
        Py_ssize_t index = PyList_GET_SIZE(w->rows);
        PyObject *row = TUPLE(PyLong_FromLong(w->elements.item[w->elements.n - 1]),
                              PyLong_FromSsize_t(w->path.n - 1), Py_NewRef(tag), Py_NewRef(words),
                              PyBool_FromLong(hidden));
        int failed = row == NULL || push(&w->classes, words) < 0
            || push_long(&w->elements, (long)index) < 0 || PyList_Append(w->rows, row) < 0
            || PyList_Append(w->ends, s_zero) < 0;
        Py_XDECREF(row);
        Py_DECREF(words);
        if (failed)
            return -1;
    }
    else if (w->keep_classes && push(&w->classes, s_empty) < 0)
        return -1;
    if (enter(w, CODE(plan, 4), tag, FIELD(plan, 6), FLAG(plan, 7), node) < 0)
        return -1;
    if (grow((void **)&w->open.item, &w->open.cap, w->open.n + 1, sizeof(Open)) < 0)
        return -1;
    Open *open = &w->open.item[w->open.n++];
    open->detail = FIELD(plan, 6);
    open->node = Py_NewRef(node);
    open->is_block = is_block;
    open->recorded = recorded;
    open->leave = CODE(plan, 5);
    open->flag = FLAG(plan, 7);
    return 0;
}

/* Leave the innermost open element; its node is handed to the caller (a new reference). */
static PyObject *leave_element(Walk *w)
{
    Open *open = &w->open.item[--w->open.n];
    PyObject *node = open->node;
    if (open->is_block) {
        if ((w->start != NULL || PyList_GET_SIZE(w->loose)) && flush(w) < 0)
            goto fail;
        pop(&w->block_tags);
    }
    if (leave(w, open->leave, open->detail, open->flag) < 0)
        goto fail;
    pop(&w->path);
    if (w->keep_classes) {
        pop(&w->classes);
        if (open->recorded) {
            PyObject *end = PyLong_FromSsize_t(PyList_GET_SIZE(w->rows));
            long index = w->elements.item[--w->elements.n];
            if (end == NULL || PyList_SetItem(w->ends, index, end) < 0)
                goto fail;
        }
    }
    return node;
fail:
    Py_DECREF(node);
    return NULL;
}

static void release_walk(Walk *w)
{
    forget_block(w);
    Py_CLEAR(w->link);
    Py_CLEAR(w->loose);
    Py_CLEAR(w->alone);
    release(&w->open_marks);
    release(&w->path);
    release(&w->classes);
    release(&w->block_tags);
    release(&w->lists);
    release(&w->code_languages);
    PyMem_Free(w->regions.item);
    PyMem_Free(w->headings.item);
    PyMem_Free(w->elements.item);
    while (w->tables.n) {
        Table *table = &w->tables.item[--w->tables.n];
        Py_DECREF(table->info);
        Py_XDECREF(table->taken);
    }
    PyMem_Free(w->tables.item);
    PyMem_Free(w->items.item);
    PyMem_Free(w->definitions.item);
    while (w->open.n)
        Py_DECREF(w->open.item[--w->open.n].node);
    PyMem_Free(w->open.item);
}

/* The walk from the root: the page's blocks (the element rows and ends filled on the way). */
static PyObject *run(Walk *w, PyObject *root)
{
    PyObject *node = Py_NewRef(root), *following = NULL;
    long steps = 0;
    for (;;) {
        PyObject *plan = plan_of(w, node);
        if (plan == NULL)
            goto fail;
        int kind = CODE(plan, 0);
        if (kind == TEXT_NODE) {
            if (text_node(w, node) < 0)
                goto fail;
            following = PyObject_GetAttr(node, s_next);
        }
        else {
            steps++;
            if (steps % w->check_every == 0 && w->budget != Py_None) {
                PyObject *checked = PyObject_CallMethodOneArg(w->budget, s_check, s_segmentation);
                if (checked == NULL)
                    goto fail;
                Py_DECREF(checked);
            }
            if (kind == SKIPPED)
                following = PyObject_GetAttr(node, s_next);
            else if (kind == LINE_BREAK) {
                if (line_break(w) < 0)
                    goto fail;
                following = PyObject_GetAttr(node, s_next);
            }
            else {
                if (enter_element(w, plan, node) < 0)
                    goto fail;
                following = PyObject_GetAttr(node, s_first_child);
                if (following == NULL)
                    goto fail;
                if (following != Py_None) {
                    Py_SETREF(node, following);
                    continue;
                }
            }
        }
        if (following == NULL)
            goto fail;
        while (following == Py_None) { /* leaving the elements that end here, innermost first */
            Py_DECREF(following);
            Py_SETREF(node, leave_element(w));
            if (node == NULL)
                return NULL;
            if (w->open.n == 0) { /* the root: its siblings are not walked */
                Py_DECREF(node);
                if (flush(w) < 0
                    || (PyList_GET_SIZE(w->alone) && record_alone(w, Py_None, Py_None) < 0))
                    return NULL;
                return Py_NewRef(w->blocks);
            }
            following = PyObject_GetAttr(node, s_next);
            if (following == NULL)
                goto fail;
        }
        Py_SETREF(node, following);
    }
fail:
    Py_XDECREF(node);
    return NULL;
}

static const char *walk_doc =
    "walk(root, plans, known, plan_for, by_id, keep_classes, min_br_run, max_blocks, budget,\n"
    "     rows, ends, limits, helpers) -> list of Block\n\n"
    "The blocks of the page under root, as grist.segment.blocks.segment_elements() walks it;\n"
    "rows and ends (the element table's lists) are filled on the way. limits is (nearest\n"
    "classes, path depth, max open inline, huge text, elements between two looks at the\n"
    "budget, the first code point of an ideograph block, the characters visible_text()\n"
    "drops, the grid slots cells spanning rows may take); helpers is (Block, describe, the attributes describe() reads besides id and\n"
    "class, code_language, a TableInfo maker, visible_text, drop_controls (for preformatted\n"
    "text), count_tokens, the too-many-blocks\n"
    "error, list_numbering, item_value, cell_spans, record_alone).";

static PyObject *walk(PyObject *Py_UNUSED(module), PyObject *args)
{
    Walk w;
    memset(&w, 0, sizeof w);
    PyObject *root, *result = NULL;
    Py_ssize_t max_blocks;
    if (!PyArg_ParseTuple(args, "OO!O!OpplnOO!O!(lllnlIUL)(OOO!OOOOOOOOOO)", &root, &PyDict_Type,
                          &w.plans, &PyDict_Type, &w.known, &w.plan_for, &w.by_id,
                          &w.keep_classes, &w.min_br_run, &max_blocks, &w.budget, &PyList_Type,
                          &w.rows, &PyList_Type, &w.ends, &w.nearest, &w.path_depth,
                          &w.max_open_inline, &w.huge_text, &w.check_every, &w.first_ideograph,
                          &w.invisible, &w.span_slots,
                          &w.block_type, &w.describe, &PyFrozenSet_Type, &w.others,
                          &w.code_language, &w.new_table, &w.collapse, &w.drop_controls,
                          &w.count_tokens, &w.too_many, &w.list_numbering, &w.item_value,
                          &w.cell_spans, &w.record_alone))
        return NULL;
    if (w.check_every < 1) {
        PyErr_SetString(PyExc_ValueError, "the elements between two budget checks must be 1+");
        return NULL;
    }
    if (read_drops(&w) < 0)
        return NULL;
    w.max_blocks = max_blocks;
    w.classes.owned = w.code_languages.owned = 1;
    w.first_node = w.last_node = w.text_node = -1;
    w.blocks = PyList_New(0);
    w.loose = PyList_New(0);
    w.alone = PyList_New(0);
    if (w.blocks != NULL && w.loose != NULL && w.alone != NULL && push_long(&w.regions, 0) == 0
        && push_long(&w.elements, -1) == 0 && reset(&w) == 0)
        result = run(&w, root);
    release_walk(&w);
    Py_XDECREF(w.blocks);
    return result;
}

static PyMethodDef methods[] = {
    {"walk", walk, METH_VARARGS, NULL},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_walk", "Compiled walk of grist.segment.blocks.", -1, methods,
    NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__walk(void)
{
    struct { PyObject **name; const char *text; } names[] = {
        {&s_tag_id, "tag_id"}, {&s_tag, "tag"}, {&s_next, "next"},
        {&s_first_child, "first_child"}, {&s_text_content, "text_content"},
        {&s_is_empty, "is_empty_text_node"}, {&s_attributes, "attributes"}, {&s_id, "id"},
        {&s_class, "class"}, {&s_link, "link"}, {&s_image, "image"}, {&s_empty, ""},
        {&s_space, " "}, {&s_newline, "\n"}, {&s_body, "body"}, {&s_page, "page"},
        {&s_classes, "classes"}, {&s_element, "element"}, {&s_text_nodes, "text_nodes"},
        {&s_gt, ">"}, {&s_ellipsis, "\xe2\x80\xa6"}, {&s_segmentation, "segmentation"},
        {&s_check, "check"}, {&s_text, "text"}, {&s_marks, "marks"},
        {&s_anchor_chars, "anchor_chars"}, {&s_anchor_words, "anchor_words"}, {&s_rows, "rows"},
        {&s_cols, "cols"}, {&s_th, "th"}, {&s_head, "head"}, {&s_caption, "caption"},
        {&s_nested, "nested"}, {&s_strip, "strip"}, {&s_rstrip, "rstrip"}, {&s_br, "br"},
    };
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if ((*names[i].name = PyUnicode_InternFromString(names[i].text)) == NULL)
            return NULL;
    if ((s_zero = PyLong_FromLong(0)) == NULL)
        return NULL;
    methods[0].ml_doc = walk_doc;
    return PyModule_Create(&module);
}
