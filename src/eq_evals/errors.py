"""Errors that name the file, key, row or sample at fault.

They derive from Inspect's PrerequisiteError, which the ``inspect`` CLI prints as a plain message
instead of a traceback.
"""

from inspect_ai._util.error import PrerequisiteError


class EqEvalsError(PrerequisiteError):
    """Base class for eq_evals errors that carry a user-facing message."""

    def __init__(self, message: str) -> None:
        PrerequisiteError.__init__(self, message)
        Exception.__init__(self, message)


class DeclarationError(EqEvalsError):
    """A task declaration (or a template/rubric file it references) is invalid."""

    def __init__(self, file: str, key: str, problem: str) -> None:
        self.file, self.key, self.problem = file, key, problem
        super().__init__(f"{file}: {key}: {problem}")


class DataError(EqEvalsError):
    """A dataset row is invalid; names the file and row (line or index) and the field."""

    def __init__(self, file: str, row: str | int, problem: str) -> None:
        self.file, self.row, self.problem = file, row, problem
        # a JSON Lines row is named by its line ("line 3"), other rows by number or name ("row 3", "record 2")
        where = row if isinstance(row, str) and row.split(" ", 1)[0] in ("line", "record", "row") else f"row {row}"
        super().__init__(f"{file}, {where}: {problem}")
