"""The app's panes (ask, search, sessions, settings), the transcript screen and the modals."""

from .ask import AskPane, AskRecord, answer_question
from .discover import DiscoverScreen
from .modals import ErrorModal, HelpScreen, SkippedScreen, WelcomeScreen
from .search import SearchPane
from .sessions import SessionsPane
from .settings import SettingsPane
from .transcript import TranscriptScreen

__all__ = [
    "AskPane",
    "AskRecord",
    "DiscoverScreen",
    "ErrorModal",
    "HelpScreen",
    "SearchPane",
    "SessionsPane",
    "SettingsPane",
    "SkippedScreen",
    "TranscriptScreen",
    "WelcomeScreen",
    "answer_question",
]
