"""The Zensical adapter: the course built by Zensical from the same sources as under MkDocs
(`trafikist build --engine zensical`, `trafikist serve --engine zensical`)."""
