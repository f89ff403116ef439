"""paperbot's answer engine: paper lists in, ranked papers with matching excerpts out.

This package never imports discord; the Discord bot and the command line are shells over it.
"""
