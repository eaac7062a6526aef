"""neardup_gui: near-duplicate screening and review for folders of texts."""

__version__ = "0.1.0"
