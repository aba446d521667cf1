"""Block classifiers: jusText-style rules, block scores, learned models."""
