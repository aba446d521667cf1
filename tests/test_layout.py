"""The layout's promises: extraction loads no training or evaluation code, and nothing cached
per process can serve an old model."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import grist
from grist.classify.tree import SHIPPED, DecisionTree
from grist.methods import method_config
from grist.modelfile import shipped

PAGE = (
    "<html><head><title>Harbour</title></head><body><ul><li><a href=/>Home</a></li>"
    "<li><a href=/n>News</a></li></ul>"
    + "<p>The harbour opened a new pier on Monday, and the boats that had waited all winter "
    "came in one after another while the town watched from the quay.</p>" * 3
    + "</body></html>"
)


def test_extracting_a_page_imports_no_training_or_evaluation_code():
    script = textwrap.dedent(f"""\
        import sys
        import grist
        for method in grist.available_methods():
            grist.extract({PAGE!r}, method=method).to_json()
        bad = sorted(m for m in sys.modules
                     if m.startswith(("grist.train", "grist.evaluate", "lightgbm", "sklearn")))
        print(",".join(bad))
        """)
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          timeout=120, check=True)
    assert done.stdout.strip() == ""


def test_rewriting_a_model_file_changes_the_next_extraction(tmp_path):
    model = tmp_path / "tree.json"
    original = DecisionTree.load(shipped(SHIPPED))
    original.save(model)
    config = method_config("tree", model)
    first = grist.extract(PAGE, method="tree", config=config)
    flipped = DecisionTree.load(model)
    flipped.proba_ = 1.0 - flipped.proba_  # same file size, opposite decisions
    flipped.save(model)
    second = grist.extract(PAGE, method="tree", config=config)
    assert [b.label for b in second.blocks] != [b.label for b in first.blocks]
    assert [b.score for b in second.blocks] == [1.0 - b.score for b in first.blocks]
    original.save(model)
    assert grist.extract(PAGE, method="tree", config=config).to_json() == first.to_json()


def test_an_extractor_keeps_the_model_it_loaded(tmp_path):
    model = tmp_path / "tree.json"
    DecisionTree.load(shipped(SHIPPED)).save(model)
    extractor = grist.Extractor(method="tree", config=method_config("tree", model))
    first = extractor(PAGE).to_json()
    model.write_text("not a model any more")
    assert extractor(PAGE).to_json() == first
