"""The site build with no engine in it: what the MkDocs and Zensical adapters both call.

- `session.CourseBuild`: one build of the course, step by step (load and check, navigation,
  each page's Markdown, the site's own files, the HTML finishing step, what comes after the
  pages);
- `options`: the build's options (mkdocs.yml, `plugins: - trafikist:`), and their defaults;
- `assets`, `files`: widgets/, the duty widget's parts and the bundled stylesheet;
- `theme`: the Content-Security-Policy and the theme's fixes, in a whole page;
- `finish`: that step on a site an engine has already written (Zensical), and a link check;
- `staging`: the staging folder that keeps the last good site until a build succeeds;
- `cache`: what a preview rebuild keeps; `preview`: error pages and a preview server.

Nothing here imports MkDocs or Zensical (tests/markdown/test_blocks.py checks it).
"""
