"""Layer 0: what every layer above the model shares: the error type, a bounded memo, file
signatures, the source being read (`reading`, which the build guard names) and the on-disk
cache of derived files every build on a machine shares (`diskcache`). Standard
library only; the model and its drawing code (layer 1) do not use it, since they must run alone
in the page."""
