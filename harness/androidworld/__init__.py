"""AndroidWorld (github.com/google-research/android_world) as a DroidHarness suite: its own task classes, set up
and judged by its own code, through an adapter of the env it expects over the harness's link to any device
(docs/androidworld.md). Nothing here imports `android_world` at module level: the package is optional (the
`androidworld` extra brings what the adapter needs besides it)."""
