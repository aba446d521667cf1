"""Segmenters: DOM blocks (seed 000), DIV/TD regions (seed 001), line-blocks (seed 004)."""
