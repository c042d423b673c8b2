"""Run reports: JSON, JUnit, Markdown and HTML writers, merging shard reports, state diagrams."""
