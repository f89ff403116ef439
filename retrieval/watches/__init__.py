"""Watches, in one place: saved queries (`service.py`), which new papers one announces
(`matching.py`) and the fitted model it uses by default (`model.py`, weights in `model.json`)."""
