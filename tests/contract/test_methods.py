"""Every registered method and every variant keeps the contract (``grist.testing.check_method``).

Methods and variants are discovered from the registry, so a new one is checked without edits.
"""

from __future__ import annotations

import pytest

import grist
from grist.methods import method_specs
from grist.testing import METHOD_CHECKS, ContractError, check_method

SPECS = method_specs()


@pytest.mark.parametrize("check", sorted(METHOD_CHECKS))
@pytest.mark.parametrize("spec", SPECS)
def test_every_method_and_variant_keeps_the_contract(spec: str, check: str) -> None:
    check_method(spec, [check])


@pytest.mark.parametrize("check", sorted(METHOD_CHECKS))
def test_a_third_party_method_is_checked_the_same_way(standin: str, check: str) -> None:
    check_method(standin, [check])
    check_method(f"{standin}/strict", [check])


def test_a_method_that_breaks_the_contract_is_named_with_what_it_broke() -> None:
    from standin_method import METHOD

    def crash(doc, config, ctx):
        if "Rivers" in doc.html:
            raise KeyError("boom")
        return METHOD.run(doc, config, ctx)

    grist.register_method("crashing", METHOD.__class__(**{**vars(METHOD), "run": crash}))
    try:
        with pytest.raises(ContractError, match=r"(?s)crashing.*article: raised KeyError"):
            check_method("crashing", ["inputs"])
    finally:
        grist.methods.unregister_method("crashing")


def test_registering_a_taken_name_is_refused() -> None:
    with pytest.raises(grist.errors.UnknownMethodError, match="already registered"):
        grist.register_method("auto", "grist.methods.auto:METHOD")
