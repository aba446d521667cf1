"""Tree ensembles evaluated with NumPy alone: LightGBM's text model format, all rows and trees at once.

``Forest.parse`` reads the output of LightGBM's ``model_to_string()`` into flat node arrays (every
tree's split nodes, then its leaves; a leaf points to itself), once. ``Forest.evaluate`` walks all
(row, tree) pairs one level per step, dropping the pairs that reached a leaf, so a page of a few
hundred blocks costs a few NumPy calls per tree level instead of a LightGBM call per stage. The
decisions follow LightGBM's ``Tree::NumericalDecision`` / ``CategoricalDecision``: NaN counts as 0
unless the split's missing type is NaN, values within 1e-35 of 0 are missing for missing type Zero,
and missing values take the split's default side.

The same walk yields Saabas' path contributions (Saabas 2014, "Interpreting random forests"): each
step from a node to its child adds ``value(child) - value(node)`` to the split feature, so a row's
raw score is the sum of the tree roots' values (the bias) plus its contributions.

When the C extension ``grist.classify._treewalk`` was built with the package (it is optional: an
install without a C compiler skips it), it walks the rows down the trees instead, with the same
decisions: stage 1 of ``auto`` on a page of 250 blocks in 0.9 ms instead of 2.6-3.0, where the
NumPy walk spends most of its time in the overhead of small calls. The NumPy walk is the
fallback and the reference the tests hold it to.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass
from functools import cached_property

import numpy as np

from grist.errors import ModelError

try:
    from grist.classify import _treewalk
except ImportError:  # built without a C compiler: the NumPy walk does the work
    _treewalk = None

K_ZERO = 1e-35  # LightGBM's kZeroThreshold
_CATEGORICAL, _DEFAULT_LEFT = 1, 2
_MISSING_ZERO, _MISSING_NAN = 1, 2
_PAIRS_PER_SLICE = 1 << 20  # (row, tree) pairs walked at once by NumPy
_ROWS_PER_SLICE = 4096  # rows walked at once in C (a feature-major copy of them is made)


def compiled_walk() -> bool:
    """Whether the trees are walked by the C extension (else by NumPy: same results, slower)."""
    return _treewalk is not None


# A node as the C walk reads it (the Node struct of _treewalk.c: same fields, same alignment).
NODE = np.dtype([("threshold", np.float64), ("feature", np.int32), ("left", np.int32),
                 ("right", np.int32), ("cat_start", np.int32), ("cat_words", np.int32),
                 ("flags", np.uint8)], align=True)


@dataclass(frozen=True)
class Forest:
    """Flat node arrays of one boosted (or averaged) ensemble.

    Node ids are global: all trees' split nodes first (``< splits``), then all leaves. The walk
    keeps slots, ``2 * node``; slot ``2 * node + 1`` is the node's edge to its right child, ``2 *
    node`` the one to its left child, and the ``slot_*`` arrays are indexed by slot (saving a
    multiplication per step). A leaf's edges lead to itself and its threshold is +inf, so a
    finished walk can idle in place.
    """

    names: tuple[str, ...]
    splits: int  # number of split nodes; ids from here on are leaves
    roots: np.ndarray  # (trees,) node id of each tree's root
    slot_feature: np.ndarray  # the node's split feature (0 at leaves)
    slot_threshold: np.ndarray  # split threshold, or category-set index for categorical splits
    slot_next: np.ndarray  # the slot of the edge's child: 2 * child
    slot_change: np.ndarray  # value(child) - value(node) along the edge
    value: np.ndarray  # per node: leaf value, or the split node's internal value
    default_left: np.ndarray  # bool per node: where missing values go
    missing_nan: np.ndarray  # bool per node: NaN is missing (else NaN counts as 0)
    missing_zero: np.ndarray  # bool per node: |x| <= 1e-35 is missing
    categorical: np.ndarray  # bool per node
    cat_start: np.ndarray  # per node: first word of its category bitset in ``cat_bits``
    cat_words: np.ndarray  # per node: number of 32-bit words of its bitset
    cat_bits: np.ndarray  # uint32 words of all bitsets
    sigmoid: float | None  # probability = 1 / (1 + exp(-sigmoid * raw)); None: raw is the output
    average: bool  # random-forest mode: the output is the mean, not the sum, of the trees
    classes: int = 1  # multi-class models: trees of class k are k, k + classes, ...; softmax

    def __post_init__(self) -> None:
        for value in vars(self).values():  # shared through the model cache: never written to
            if isinstance(value, np.ndarray):
                value.flags.writeable = False

    @property
    def num_trees(self) -> int:
        """Number of trees in the ensemble."""
        return len(self.roots)

    @classmethod
    def parse(cls, text: str) -> Forest:
        """Read LightGBM's text model format (raises ModelError on what it cannot evaluate)."""
        header, trees = _sections(text)
        names = tuple(header.get("feature_names", "").split())
        if len(names) != int(header.get("max_feature_idx", "-1")) + 1:
            raise ModelError("model header: feature names do not match max_feature_idx")
        objective = header.get("objective", "")
        classes = int(header.get("num_tree_per_iteration", "1"))
        if (classes > 1) != objective.startswith("multiclass ") or len(trees) % classes:
            raise ModelError(f"unsupported multi-class model ({objective!r}, {classes} trees "
                             "per iteration)")
        sigmoid = None if classes > 1 else _output_scale(objective)
        return _build(names, trees, sigmoid, "average_output" in header, classes)

    def evaluate(self, values: np.ndarray, contributions: bool = False
                 ) -> tuple[np.ndarray, np.ndarray | None]:
        """Raw scores of the rows (rows x classes for multi-class models), and (if asked, binary
        models only) their contributions in LightGBM's ``pred_contrib`` layout: one column per
        feature plus the bias last."""
        values = np.ascontiguousarray(values, dtype=np.float64)
        rows, width = values.shape if values.ndim == 2 else (0, 0)
        if width != len(self.names):
            raise ModelError(f"the model reads {len(self.names)} features, got {width}")
        if contributions and self.classes > 1:
            raise ModelError("contributions of multi-class models are not supported")
        if not rows or not self.num_trees:
            raw = np.zeros((rows, self.classes) if self.classes > 1 else rows)
            return raw, np.zeros((rows, width + 1)) if contributions else None
        contrib = np.zeros((rows, width + 1)) if contributions else None
        walk = self._evaluate_compiled if _treewalk is not None else self._evaluate_numpy
        raw = walk(values, contrib)
        if contrib is not None:
            contrib[:, width] = self.value[self.roots].sum()
        if self.average:
            raw /= self.num_trees
            if contrib is not None:
                contrib /= self.num_trees
        return raw, contrib

    def _evaluate_compiled(self, values: np.ndarray, contrib: np.ndarray | None) -> np.ndarray:
        """The trees' summed output by the C walk (``grist.classify._treewalk``), which walks a
        feature-major copy of the values so that rows at the same node read neighbouring memory;
        the path contributions are added to ``contrib`` (all but its bias column) when given.
        Rows go in slices, so the copy stays small on pages of many blocks."""
        rows = len(values)
        raw = np.zeros((rows, self.classes))
        for start in range(0, rows, _ROWS_PER_SLICE):
            end = start + _ROWS_PER_SLICE
            _treewalk.walk(values[start:end], min(end, rows) - start,
                           *self._nodes, self.splits, self.classes, self._no_missing_rules,
                           raw[start:end], None if contrib is None else contrib[start:end])
        return raw if self.classes > 1 else raw[:, 0]

    @cached_property
    def _no_missing_rules(self) -> bool:
        """Whether every split is numerical without missing-value rules (the C walk's fast
        path); worked out once per model rather than per call."""
        return not (self.missing_zero.any() or self.missing_nan.any() or self.categorical.any())

    @cached_property
    def _nodes(self) -> tuple[np.ndarray, ...]:
        """What the C walk reads: the roots, one ``NODE`` record per node, the category
        bitsets and the node values."""
        nodes = np.zeros(len(self.value), dtype=NODE)
        nodes["threshold"] = self.slot_threshold[::2]
        nodes["feature"] = self.slot_feature[::2]
        nodes["left"], nodes["right"] = self.slot_next[0::2] >> 1, self.slot_next[1::2] >> 1
        nodes["cat_start"], nodes["cat_words"] = self.cat_start, self.cat_words
        nodes["flags"] = (self.categorical * 1 + self.default_left * 2 + self.missing_nan * 4
                          + self.missing_zero * 8)
        return np.ascontiguousarray(self.roots, dtype=np.int32), nodes, self.cat_bits, self.value

    def _evaluate_numpy(self, values: np.ndarray, contrib: np.ndarray | None) -> np.ndarray:
        """The trees' summed output by the level-by-level NumPy walk; the path contributions are
        written to ``contrib`` (all but its bias column) when given."""
        rows, width = values.shape
        if self.classes > 1:
            leaves, _ = self._walk(values, False)
            return self.value[leaves].reshape(rows, -1, self.classes).sum(axis=1)
        raw = np.zeros(rows)
        # The walk holds a few arrays of (row, tree) pairs: rows go in slices of about a million
        # pairs, so memory stays bounded on pages of many blocks (each row's sums are unchanged).
        step = max(1, _PAIRS_PER_SLICE // self.num_trees)
        for start in range(0, rows, step):
            part = values[start : start + step]
            leaves, steps = self._walk(part, contrib is not None)
            raw[start : start + len(part)] = self.value[leaves].reshape(
                len(part), self.num_trees).sum(axis=1)
            if contrib is not None:
                contrib[start : start + len(part), :width] = steps.reshape(len(part), width)
        return raw

    def predict(self, values: np.ndarray) -> np.ndarray:
        """What LightGBM's ``predict`` gives: probabilities for binary models, else raw scores."""
        return self.transform(self.evaluate(values)[0])

    def transform(self, raw: np.ndarray) -> np.ndarray:
        """Raw scores to the model's output scale (the sigmoid of binary objectives, the softmax
        over classes of multi-class ones)."""
        if self.classes > 1:
            shifted = np.exp(raw - raw.max(axis=-1, keepdims=True))
            return shifted / shifted.sum(axis=-1, keepdims=True)
        if self.sigmoid is None:
            return raw
        return 1.0 / (1.0 + np.exp(-self.sigmoid * raw))

    def _walk(self, values: np.ndarray, contributions: bool) -> tuple[np.ndarray, np.ndarray]:
        """Level-synchronous descent of every (row, tree) pair: the leaf each pair ends in
        (row-major), and the flat (row, feature) sums of the steps' value changes.

        The pairs are walked tree by tree and the values read feature by feature, so that the
        rows of one tree, which mostly visit the same nodes, read neighbouring memory. A
        (row, feature) sum still adds its changes step by step and tree by tree, as row by row.
        """
        rows, width = values.shape
        trees = self.num_trees
        flat = values.T.ravel()  # feature-major
        plain = self._plain and not np.isnan(flat).any()
        base = np.tile(np.arange(rows, dtype=np.int64), trees)
        slot_cell = self.slot_feature * rows  # offset of the slot's feature in ``flat``
        slot = np.repeat(2 * self.roots, rows)
        pos = np.arange(len(slot))
        leaves = np.empty(len(slot), dtype=np.int64)
        first_leaf_slot = 2 * self.splits
        where: list[np.ndarray] = []  # per step: flat (feature, row) index and value change
        changes: list[np.ndarray] = []
        # ``array.take``: faster than fancy indexing on large gathers, and than ``np.take``'s
        # Python wrapper on the small ones of small pages
        slot_threshold, slot_next = self.slot_threshold, self.slot_next
        for level in itertools.count():
            if level % 2 == 0:  # every other level: drop finished pairs once they are a quarter
                done = slot >= first_leaf_slot
                if int(np.count_nonzero(done)) * 4 >= len(slot):
                    finished = done.nonzero()[0]
                    leaves[pos.take(finished)] = slot.take(finished) >> 1
                    keep = (~done).nonzero()[0]
                    slot, pos, base = slot.take(keep), pos.take(keep), base.take(keep)
                    if not len(slot):
                        break
            cell = base + slot_cell.take(slot)
            x = flat.take(cell)
            edge = slot + (x > slot_threshold.take(slot) if plain else ~self._decide(slot, x))
            if contributions:
                where.append(cell)
                changes.append(self.slot_change.take(edge))
            slot = slot_next.take(edge)
        leaves = leaves.reshape(trees, rows).T.ravel()
        if not contributions:
            return leaves, np.zeros(0)
        sums = np.bincount(np.concatenate(where), weights=np.concatenate(changes),
                           minlength=rows * width)
        return leaves, sums.reshape(width, rows).T.ravel()

    @property
    def _plain(self) -> bool:
        """Whether every split is a numerical ``x <= threshold`` test for non-NaN input."""
        return not (self.missing_zero.any() or self.categorical.any())

    def _decide(self, slot: np.ndarray, x: np.ndarray) -> np.ndarray:
        """Whether each (node, feature value) pair goes left, with LightGBM's missing-value rules."""
        node = slot >> 1
        nan = np.isnan(x)
        x = np.where(nan & ~self.missing_nan[node], 0.0, x)
        missing = (nan & self.missing_nan[node]) | (self.missing_zero[node] & (np.abs(x) <= K_ZERO))
        go_left = np.where(missing, self.default_left[node], x <= self.slot_threshold[slot])
        cat = np.flatnonzero(self.categorical[node])
        if len(cat):
            go_left[cat] = self._in_category(node[cat], x[cat], nan[cat])
        return go_left

    def _in_category(self, node: np.ndarray, x: np.ndarray, nan: np.ndarray) -> np.ndarray:
        """LightGBM's categorical test: the (truncated, non-negative) value is in the node's set;
        NaN is 0 unless the split treats it as missing (then it goes right)."""
        usable = ~(nan & self.missing_nan[node]) & (x > -1.0)  # int cast truncates toward 0
        category = np.clip(np.where(usable, x, 0.0), 0, 2**31 - 1).astype(np.int64)
        word = category // 32
        usable &= word < self.cat_words[node]
        bits = self.cat_bits[np.where(usable, self.cat_start[node] + word, 0)]
        return usable & (((bits.astype(np.int64) >> (category % 32)) & 1) == 1)


def _sections(text: str) -> tuple[dict[str, str], list[dict[str, str]]]:
    """The header's and each tree's ``key=value`` lines."""
    body = text.split("end of trees", 1)[0]
    if not body.lstrip().startswith("tree"):
        raise ModelError("not a LightGBM text model")
    chunks = body.split("\nTree=")

    def pairs(chunk: str) -> dict[str, str]:
        fields = (line.partition("=") for line in chunk.splitlines() if line.strip())
        return {key.strip(): value.strip() for key, _, value in fields}

    return pairs(chunks[0]), [pairs("Tree=" + chunk) for chunk in chunks[1:]]


def _output_scale(objective: str) -> float | None:
    """The sigmoid slope of a binary objective; None for objectives whose output is raw."""
    name, *options = objective.split()
    if name in ("binary", "cross_entropy", "xentropy"):
        for option in options:
            if option.startswith("sigmoid:"):
                return float(option.split(":", 1)[1])
        return 1.0
    if name.startswith("regression") or name in ("huber", "fair", "quantile", "mape", ""):
        return None
    raise ModelError(f"unsupported objective {name!r}")


def _numbers(tree: dict[str, str], key: str, kind: type = float) -> list:
    return [kind(v) for v in tree.get(key, "").split()]


def _check_nodes(node_cols: dict[str, list], sizes: list[int], split_base: np.ndarray,
                 leaf_base: np.ndarray, width: int) -> None:
    """Raise ModelError unless every split reads a known feature and leads to a later split or
    to a leaf of its own tree (global ids: each tree's splits from ``split_base``, its leaves
    from ``leaf_base``), so that every walk ends and reads only what exists."""
    leaves = np.array(sizes, dtype=np.int64)
    count = leaves - 1  # split nodes per tree
    if not count.sum():
        return
    split_end = np.repeat(split_base + count, count)  # first split id after the node's tree
    leaf_start = np.repeat(leaf_base, count)
    leaf_end = leaf_start + np.repeat(leaves, count)
    node = np.arange(len(split_end))
    splits = len(split_end)
    feature = np.array(node_cols["feature"], dtype=np.int64)
    if ((feature < 0) | (feature >= width)).any():
        raise ModelError(f"model tree: a split on a feature the model does not have ({width})")
    for side in ("left", "right"):
        child = np.array(node_cols[side], dtype=np.int64)
        inside = np.where(child >= splits, (child >= leaf_start) & (child < leaf_end),
                          (child > node) & (child < split_end))
        if not inside.all():
            raise ModelError("model tree: a split leads outside its tree or back up it")


def _build(names: tuple[str, ...], trees: list[dict[str, str]], sigmoid: float | None,
           average: bool, classes: int = 1) -> Forest:
    """Concatenate the trees into global node arrays: all split nodes, then all leaves."""
    for tree in trees:
        if tree.get("is_linear", "0") != "0":
            raise ModelError("linear trees are not supported")
    sizes = [int(tree["num_leaves"]) for tree in trees]
    splits = sum(sizes) - len(sizes)
    split_base = np.concatenate([[0], np.cumsum(sizes)[:-1] - np.arange(len(sizes) - 1) - 1]
                                ) if sizes else np.zeros(0, dtype=np.int64)
    leaf_base = splits + np.concatenate([[0], np.cumsum(sizes)[:-1]]).astype(np.int64)
    node_cols: dict[str, list] = {k: [] for k in (
        "feature", "threshold", "left", "right", "value", "decision", "cat_start", "cat_words")}
    leaf_values: list[float] = []
    roots, cat_bits = [], []
    for tree, leaves, sbase, lbase in zip(trees, sizes, split_base, leaf_base, strict=True):
        count = leaves - 1
        values = _numbers(tree, "leaf_value")
        internal = _numbers(tree, "internal_value") or [0.0] * count
        columns = [_numbers(tree, key, kind) for key, kind in (
            ("split_feature", int), ("threshold", float), ("decision_type", int),
            ("left_child", int), ("right_child", int))]
        if len(values) != leaves or any(len(c) != count for c in [internal, *columns]):
            raise ModelError("model tree: split and leaf arrays of the wrong length")
        feature, threshold, decision, left, right = columns
        boundaries = _numbers(tree, "cat_boundaries", int)
        bits = len(_numbers(tree, "cat_threshold", int))
        for i in range(count):
            index = int(threshold[i]) if decision[i] & _CATEGORICAL else -1
            if index >= 0 and not (index + 1 < len(boundaries)
                                   and 0 <= boundaries[index] <= boundaries[index + 1] <= bits):
                raise ModelError("model tree: a categorical split without its category set")
            node_cols["cat_start"].append(len(cat_bits) + boundaries[index] if index >= 0 else 0)
            node_cols["cat_words"].append(
                boundaries[index + 1] - boundaries[index] if index >= 0 else 0)
        cat_bits += _numbers(tree, "cat_threshold", int)
        node_cols["feature"] += feature
        node_cols["threshold"] += threshold
        node_cols["decision"] += decision
        node_cols["left"] += [int(sbase + c if c >= 0 else lbase + ~c) for c in left]
        node_cols["right"] += [int(sbase + c if c >= 0 else lbase + ~c) for c in right]
        node_cols["value"] += internal
        leaf_values += values
        roots.append(int(sbase if count else lbase))
    _check_nodes(node_cols, sizes, split_base, leaf_base, len(names))
    total = splits + len(leaf_values)
    leaf_ids = np.arange(splits, total)
    children = np.empty(2 * total, dtype=np.int64)
    children[0:2 * splits:2], children[1:2 * splits:2] = node_cols["left"], node_cols["right"]
    children[2 * splits::2] = children[2 * splits + 1::2] = leaf_ids
    decision = np.array(node_cols["decision"] + [0] * len(leaf_values), dtype=np.int64)
    missing = (decision >> 2) & 3

    def padded(column: str, fill: float, dtype: type) -> np.ndarray:
        return np.array(node_cols[column] + [fill] * len(leaf_values), dtype=dtype)

    value = np.array(node_cols["value"] + leaf_values, dtype=np.float64)

    return Forest(
        names=names, splits=splits, roots=np.array(roots, dtype=np.int64),
        slot_feature=np.repeat(padded("feature", 0, np.int64), 2),
        slot_threshold=np.repeat(padded("threshold", math.inf, np.float64), 2),
        slot_next=2 * children, slot_change=value[children] - np.repeat(value, 2), value=value,
        default_left=(decision & _DEFAULT_LEFT) > 0, missing_nan=missing == _MISSING_NAN,
        missing_zero=missing == _MISSING_ZERO, categorical=(decision & _CATEGORICAL) > 0,
        cat_start=padded("cat_start", 0, np.int64), cat_words=padded("cat_words", 0, np.int64),
        cat_bits=np.array(cat_bits, dtype=np.uint32), sigmoid=sigmoid, average=average,
        classes=classes,
    )
