"""The course: what `modules/` holds, read, checked for syntax and rendered to Markdown that any
Python-Markdown engine builds. Layer 3: it reads the model (its runs) and the registry (its rows),
never the checks or the build.

- `structure`: the plain data (books, pages, duties, statuses), where a page's module keeps
  its scenarios, and what a slug is (every id and name the course writes as one); `loader`:
  `modules/` into a `Course` (the folders are the structure); `schemas`: the YAML's schemas;
  `sources`: reading YAML and front matter with their lines;
- `syntax`: what a page's Markdown holds that the checks read (marked spans, excerpts, fences,
  source comments, Valkey's command flags and ACL categories); `markdown/`: the Python-Markdown
  extensions both engines run (the prose blocks, the registry's inline syntax, the sections,
  and the stash of the renderer's own HTML, `generated_html`);
- `render`: a page's Markdown, with what the structure knows (header, generated blocks, cards);
  `templates/`: its Jinja templates; `reference`: the generated command pages;
- `runs`: the model's runs of the course's scenarios, made once and shared; `predicates`: what a
  sentence or a question says a run shows, evaluated on its trace; `examples`: a dive's worked
  example; `transcripts`: a page's Valkey transcripts and their command lists;
- `questions`: Check yourself, a page's questions and what the run shows for each option;
  `review`: the review page that asks them all again;
- `scaffold`: `trafikist new module|dive`.
"""
