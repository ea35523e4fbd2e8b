"""Python-Markdown extensions for course pages; none of them imports MkDocs."""
