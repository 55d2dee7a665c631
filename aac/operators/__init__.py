"""Safety-aware context operators over typed agent knowledge: TypeCompact, TypeDecompose, TypeRetrieve.

Imports only numpy and small libraries (no Prefect, GitHub, typer or torch), so agent runtimes can use it alone.
"""

from aac.operators.compact import CompactResult, type_compact
from aac.operators.model import GLOBAL, TYPES, Item, KnowledgeBase, TopicTree, scope_covers

__all__ = ["CompactResult", "GLOBAL", "Item", "KnowledgeBase", "TYPES", "TopicTree", "scope_covers", "type_compact"]
