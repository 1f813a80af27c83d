"""Task families: task templates with typed parameters and a seeded generator (docs/milestones.md, "Task
families"). `tasks.families.registry.FAMILIES` lists the bundled ones."""
