"""Trafikist: the course site's core (course, registry, model) and its MkDocs adapter."""

__version__ = "0.1.0"
