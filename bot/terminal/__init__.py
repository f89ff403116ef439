"""The terminal shell: the command line and the chat console (never imports discord)."""
