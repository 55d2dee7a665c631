"""Safety-aware context operators over typed agent knowledge: TypeCompact, TypeDecompose, TypeRetrieve.

Imports only numpy and small libraries (no Prefect, GitHub, typer, torch or pyarrow), so agent runtimes can
use it alone; bm25s, the static embedding model and scikit-learn load only when a scorer or split needs them.
"""

from aac.operators.compact import CompactResult, type_compact
from aac.operators.compose import Context, fit_context
from aac.operators.context import render_with_context
from aac.operators.decompose import DecomposeResult, Partition, type_decompose
from aac.operators.model import GLOBAL, TYPES, Item, KnowledgeBase, TopicTree, scope_covers, scope_intersects
from aac.operators.retrieve import Retrieved, TypeRetriever

__all__ = ["CompactResult", "Context", "DecomposeResult", "GLOBAL", "Item", "KnowledgeBase", "Partition", "Retrieved",
           "TYPES", "TopicTree", "TypeRetriever", "fit_context", "render_with_context", "scope_covers",
           "scope_intersects", "type_compact", "type_decompose"]
