"""Keep or drop each data table whole, by the share of its words the method kept.

Methods label cells one by one, so a kept table loses its header row and row labels (short cells
look like boilerplate) and a dropped one leaves stray values behind. Applied to data tables only
(``grist.segment.tables``): the same vote over layout tables merged articles with their menus
and cost 0.009-0.030 LCS F1 on the older datasets (docs/decisions.md).
"""

from __future__ import annotations

from grist.document import BOILERPLATE, CONTENT, Block
from grist.segment.tables import is_data_table, table_cells
from grist.whitespace import count_tokens

KEEP_SHARE = 0.5  # a data table is kept when at least this share of its words was kept


def tables_as_units(blocks: list[Block], keep_share: float = KEEP_SHARE) -> int:
    """Relabel the cells of every data table to the label of the majority of its words; returns
    how many blocks changed. A changed block says so in its reason and ``decided_by="table"``."""
    changed = 0
    for cells in table_cells(blocks).values():
        if not is_data_table(cells):
            continue
        words = [count_tokens(b.text) for b in cells]
        total = sum(words)
        kept = sum(w for b, w in zip(cells, words, strict=True) if b.is_content)
        keep = total > 0 and kept >= keep_share * total
        label = CONTENT if keep else BOILERPLATE
        why = (f"data table {'kept' if keep else 'dropped'} whole: {kept} of its {total} words "
               "were content")
        for block in cells:
            if block.label != label and block.label is not None:
                block.reason = f"{why} (page: {block.reason})"
                block.label = label
                block.decided_by = "table"
                changed += 1
    return changed
