"""AgentArtifactCorpus: crawl, process, type and publish AI coding-agent configuration files."""

__version__ = "0.1.0"
