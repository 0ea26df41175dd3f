"""Language-model back ends behind one small interface (`LLMBackend`), their factory and the model catalog.

The engine modules (`llama`, `openai_backend`) are not imported here: `make_backend` loads the one chosen.
"""

from .base import ChatMessage, Completion, LLMBackend, Usage
from .catalog import ModelEntry, list_models, pull, resolve_model
from .factory import BACKENDS, make_backend
from .scripted import ScriptedBackend, ScriptedCall, stage_of

__all__ = [
    "BACKENDS",
    "ChatMessage",
    "Completion",
    "LLMBackend",
    "ModelEntry",
    "ScriptedBackend",
    "ScriptedCall",
    "Usage",
    "list_models",
    "make_backend",
    "pull",
    "resolve_model",
    "stage_of",
]
