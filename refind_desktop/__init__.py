"""refind-desktop: local-first search and question answering over your own chat history."""

__version__ = "0.1.0"
