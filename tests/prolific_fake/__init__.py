"""A local fake of Prolific's API (v1) for the test suite: `FakeProlific` (the records, rules and the control
API tests drive it with) served over HTTP by `FakeProlificServer`; the `prolific_fake` fixture (fixtures.py)
starts one per test and points the PROLIFIC_* settings at it."""
from .server import FakeProlificServer
from .state import ApiError, Call, Delivery, Event, FakeProlific, Fault, Refused, Submission, sign

__all__ = ["ApiError", "Call", "Delivery", "Event", "FakeProlific", "FakeProlificServer", "Fault", "Refused",
           "Submission", "sign"]
