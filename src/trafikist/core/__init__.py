"""The build core: one build of the course with no engine in it, which the MkDocs and Zensical
adapters both drive. Its steps, in order, are those of `session.CourseBuild` (that docstring is
the one list of them).

- `site`: load the course, the registry, the manifest and the seed, and check them all
  (trafikist.checks), into a `Site`;
- `session`: `CourseBuild`, the steps; `options`: the build's options and their defaults;
- `assets`, `files`: the site's own files (widgets/, the bundled stylesheet);
- `widget`: the duty widget's build parts (baked runs, the model's wheel and lock, Pyodide's
  runtime, the memory snapshot); `offline`: the site's service worker (the cache of derived
  files every build on a machine shares is `base.diskcache`);
- `theme`: the Content-Security-Policy and the theme's fixes, in a whole page;
- `staging`: the folder that keeps the last good site until a build succeeds;
- `cache`: what a preview rebuild keeps; `preview`: the error pages and the reload client.

Nothing here imports MkDocs or Zensical (tests/test_layers.py checks it).
"""
