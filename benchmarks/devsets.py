"""The eight labelled dev datasets of ``../shared/datasets`` that the accuracy, speed and
language benchmarks read, in one place (the sites benchmarks keep their own choice)."""

DATASETS = ("cleaneval-dev", "cleaneval-final", "cleanportaleval", "dragnet", "l3s-gn1",
            "modern-dev", "readability", "wcxb-dev")
