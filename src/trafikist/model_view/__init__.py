"""Drawing a model trace, and the page's entry points: stdlib only, in the model's wheel.

The build calls these in CPython to bake a duty's default run into the page; the page's worker
calls the same functions in Pyodide after a live run (`trafikist.model_view.live`).
"""

from trafikist.model_view.draw import render_result_html, render_timeline_svg, render_trace_html

__all__ = ["render_result_html", "render_timeline_svg", "render_trace_html"]
