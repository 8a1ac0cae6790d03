"""FACET (Lv et al., 2026): taxonomy, answer parsing, objective scoring rules and data adapters."""
