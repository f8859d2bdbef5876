"""`metadef`: the module name the seed uses for its metadef checker (`python -m
metadef.validator x.json`); it is opgen's validator under that name."""
