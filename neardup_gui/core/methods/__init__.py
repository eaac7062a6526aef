"""Candidate-generation methods. Each proposes pairs; ``core.verify`` scores them exactly.

Must not import Qt or ``neardup_gui.io``.
"""
