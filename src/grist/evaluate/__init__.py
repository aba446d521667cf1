"""Evaluation: metrics, dataset readers, peers and reports."""
