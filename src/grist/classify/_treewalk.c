/* Compiled tree walk for grist.classify.forest: every row down every tree, in C.
 *
 * The NumPy walk in forest.py descends all (row, tree) pairs one level per NumPy call; on a
 * page of a few hundred blocks that is hundreds of small calls, each costing more than the
 * work it does. This module walks the rows down each tree with the same decisions (LightGBM's
 * NumericalDecision / CategoricalDecision), adds up the leaves per class and, when asked,
 * Saabas' path contributions. It reads plain buffers (no NumPy headers at build time);
 * forest.py checks the node arrays when it parses a model (children after their parent, ids
 * and features in range), and this module checks every buffer's length before reading it.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <math.h>
#include <stdint.h>

#define CATEGORICAL 1
#define DEFAULT_LEFT 2
#define MISSING_NAN 4
#define MISSING_ZERO 8
#define K_ZERO 1e-35
#define LANES 16 /* rows walked down one tree side by side: their loads overlap */

/* One node, packed so that a step reads one record (NumPy's aligned record of the same fields,
 * forest.py's NODE). A leaf's children are itself and its threshold is +inf. */
typedef struct {
    double threshold;
    int32_t feature, left, right, cat_start, cat_words;
    uint8_t flags;
} Node;

/* The forest and the rows: x holds them feature-major, value of feature j of row r at
 * x[j * rows + r] (walk() transposes the row-major values it is given into it). */
typedef struct {
    const Node *node;
    const uint32_t *cat_bits;
    const double *value, *x;
    Py_ssize_t splits, rows;
} Walk;

/* Whether a categorical split sends x left: its truncated value is in the node's bitset. */
static int in_category(const Walk *w, const Node *n, double x) {
    long long category;
    if (isnan(x)) {
        if (n->flags & MISSING_NAN) return 0;
        category = 0;
    } else {
        if (x <= -1.0) return 0; /* the int cast truncates toward 0: (-1, 0) is category 0 */
        category = x >= 2147483647.0 ? 2147483647LL : (long long)x;
    }
    long long word = category / 32;
    if (word >= n->cat_words) return 0;
    return (w->cat_bits[n->cat_start + word] >> (category % 32)) & 1u;
}

/* The child a row with value x goes to from split node n, by every rule. */
static int32_t step(const Walk *w, const Node *n, double x) {
    uint8_t flags = n->flags;
    if (flags & CATEGORICAL) return in_category(w, n, x) ? n->left : n->right;
    if (isnan(x) && !(flags & MISSING_NAN)) x = 0.0;
    if (((flags & MISSING_NAN) && isnan(x)) || ((flags & MISSING_ZERO) && fabs(x) <= K_ZERO))
        return (flags & DEFAULT_LEFT) ? n->left : n->right;
    return x <= n->threshold ? n->left : n->right;
}

/* Add the leaves of rows first..first+count-1 (count <= LANES) of one tree whose splits are
 * all numerical without missing-value rules (NaN reads as 0): the rows go down side by side,
 * each step without a branch (the direction is a coin toss, and a mispredicted branch costs
 * more than a step), so that their loads overlap. A row that reached its leaf idles there. */
static void plain_tree(const Walk *w, int32_t root, Py_ssize_t first, Py_ssize_t count,
                       double *sums, Py_ssize_t classes, Py_ssize_t cls) {
    int32_t at[LANES];
    for (Py_ssize_t i = 0; i < count; i++) at[i] = root;
    for (;;) {
        int done = 1;
        for (Py_ssize_t i = 0; i < count; i++) {
            const Node *n = w->node + at[i];
            double v = w->x[n->feature * w->rows + first + i];
            if (isnan(v)) v = 0.0;
            at[i] = (&n->left)[v > n->threshold];
            done &= at[i] >= w->splits;
        }
        if (done) break;
    }
    for (Py_ssize_t i = 0; i < count; i++) sums[(first + i) * classes + cls] += w->value[at[i]];
}

/* Add the leaves of every row and tree, and (when contrib is not NULL: rows x (width + 1), the
 * last column left alone) the path contributions, with every kind of split. */
static void general_walk(const Walk *w, const int32_t *root, Py_ssize_t trees, Py_ssize_t width,
                         double *sums, Py_ssize_t classes, double *contrib) {
    for (Py_ssize_t r = 0; r < w->rows; r++) {
        double *row_contrib = contrib ? contrib + r * (width + 1) : NULL;
        for (Py_ssize_t t = 0; t < trees; t++) {
            int32_t node = root[t];
            while (node < w->splits) {
                const Node *n = w->node + node;
                int32_t child = step(w, n, w->x[n->feature * w->rows + r]);
                if (row_contrib) row_contrib[n->feature] += w->value[child] - w->value[node];
                node = child;
            }
            sums[r * classes + t % classes] += w->value[node];
        }
    }
}

#define TILE 16 /* rows and features transposed at a time: both sides stay in cache */

/* x, feature-major, from the row-major values (rows x width): tile by tile, which is several
 * times faster than NumPy's element by element copy of a transposed view. */
static void transpose(const double *values, Py_ssize_t rows, Py_ssize_t width, double *x) {
    for (Py_ssize_t r0 = 0; r0 < rows; r0 += TILE) {
        Py_ssize_t r1 = rows - r0 < TILE ? rows : r0 + TILE;
        for (Py_ssize_t j0 = 0; j0 < width; j0 += TILE) {
            Py_ssize_t j1 = width - j0 < TILE ? width : j0 + TILE;
            for (Py_ssize_t r = r0; r < r1; r++)
                for (Py_ssize_t j = j0; j < j1; j++) x[j * rows + r] = values[r * width + j];
        }
    }
}

static int check(Py_buffer *buffer, Py_ssize_t count, Py_ssize_t item, const char *name) {
    if (buffer->len != count * item) {
        PyErr_Format(PyExc_ValueError, "walk: %s holds %zd bytes, expected %zd", name,
                     buffer->len, count * item);
        return 0;
    }
    return 1;
}

/* walk(values, rows, roots, nodes, cat_bits, value, splits, classes, plain, out, contrib)
 * values: float64 rows x width (row-major); roots: int32 per tree; nodes: one Node record
 * per node; cat_bits: uint32; value: float64 per node; plain: every split is numerical without
 * missing-value rules. out: float64 rows x classes, added to; contrib: float64 rows x
 * (width + 1), added to but for its last column (LightGBM's bias column), or None. Tree t adds
 * to class t % classes. */
static PyObject *walk(PyObject *self, PyObject *args) {
    Py_buffer values, roots, nodes, cat_bits, value, out, steps;
    PyObject *contrib_obj;
    Py_ssize_t rows, splits, classes;
    int plain;
    if (!PyArg_ParseTuple(args, "y*ny*y*y*y*nnpw*O", &values, &rows, &roots, &nodes, &cat_bits,
                          &value, &splits, &classes, &plain, &out, &contrib_obj))
        return NULL;
    Py_buffer *all[] = {&values, &roots, &nodes, &cat_bits, &value, &out};
    const size_t count = sizeof(all) / sizeof(all[0]);
    int have_contrib = contrib_obj != Py_None, ok = 1;
    if (have_contrib && PyObject_GetBuffer(contrib_obj, &steps, PyBUF_WRITABLE) < 0) {
        for (size_t i = 0; i < count; i++) PyBuffer_Release(all[i]);
        return NULL;
    }
    Py_ssize_t total = value.len / (Py_ssize_t)sizeof(double);
    Py_ssize_t trees = roots.len / (Py_ssize_t)sizeof(int32_t);
    Py_ssize_t width = rows > 0 ? values.len / (Py_ssize_t)sizeof(double) / rows : 0;
    if (rows <= 0 || classes <= 0 || splits < 0 || splits > total) {
        PyErr_SetString(PyExc_ValueError, "walk: bad row count, classes or split count");
        ok = 0;
    }
    ok = ok && check(&values, rows * width, sizeof(double), "values")
         && check(&nodes, total, sizeof(Node), "nodes")
         && check(&out, rows * classes, sizeof(double), "out")
         && (!have_contrib || check(&steps, rows * (width + 1), sizeof(double), "contrib"));
    double *x = ok ? PyMem_Malloc(rows * width * sizeof(double) + 1) : NULL;
    if (ok && x == NULL) {
        PyErr_NoMemory();
        ok = 0;
    }
    if (ok) {
        Walk w = {nodes.buf, cat_bits.buf, value.buf, x, splits, rows};
        const int32_t *root = roots.buf;
        double *contrib = have_contrib ? steps.buf : NULL;
        Py_BEGIN_ALLOW_THREADS
        transpose(values.buf, rows, width, x);
        if (plain && !contrib && width > 0) { /* (an idle row reads its leaf's feature 0) */
            for (Py_ssize_t t = 0; t < trees; t++)
                for (Py_ssize_t first = 0; first < rows; first += LANES)
                    plain_tree(&w, root[t], first, rows - first < LANES ? rows - first : LANES,
                               out.buf, classes, t % classes);
        } else {
            general_walk(&w, root, trees, width, out.buf, classes, contrib);
        }
        Py_END_ALLOW_THREADS
    }
    PyMem_Free(x);
    for (size_t i = 0; i < count; i++) PyBuffer_Release(all[i]);
    if (have_contrib) PyBuffer_Release(&steps);
    if (!ok) return NULL;
    Py_RETURN_NONE;
}

static PyMethodDef methods[] = {
    {"walk", walk, METH_VARARGS, "Walk every row down every tree (see grist.classify.forest)."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_treewalk", NULL, -1, methods};

PyMODINIT_FUNC PyInit__treewalk(void) { return PyModule_Create(&module); }
