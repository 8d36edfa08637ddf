"""Exceptions with locations: every error names the file, record (line) and JSON path it is about."""

from __future__ import annotations

import reprlib


def shorten(text: str, limit: int = 80) -> str:
    """``text`` as is, or its first ``limit`` characters and how long it was (a 5 MB string
    quoted in an error message stays one short line): ``'abc…(5000000 chars)'``."""
    return text if len(text) <= limit else f"{text[:limit]}…({len(text)} chars)"


def brief(value: object, limit: int = 80) -> str:
    """A short ``repr`` of any value, built without the whole one: nested containers are cut at
    a few levels and items (a YAML alias bomb, whose full repr would fill the memory, stays one
    short line), then :func:`shorten`."""
    if type(value) is int and value.bit_length() > 4 * limit:  # repr refuses > 4300 digits
        return f"<an integer of {value.bit_length()} bits>"
    if isinstance(value, (str, int, float)):
        return shorten(repr(value), limit)
    r = reprlib.Repr()
    r.maxlevel, r.maxdict, r.maxlist, r.maxtuple, r.maxset = 3, 8, 8, 8, 8
    r.maxstring, r.maxother, r.maxlong = limit, limit, limit
    return shorten(r.repr(value), limit)


class ScinumError(Exception):
    """Base class of every error scinum raises on purpose."""


class RecordError(ScinumError, ValueError):
    """Something is wrong with one record: the message names where (file, line/record, JSON path)."""

    def __init__(
        self, message: str, *, file: str | None = None, line: int | None = None, record: int | None = None, path: str | None = None
    ):
        self.reason = message
        self.file, self.line, self.record, self.path = file, line, record, path
        super().__init__(self._format())

    def _format(self) -> str:
        where = []
        if self.file is not None:
            where.append(f"{self.file}" + (f":{self.line}" if self.line is not None else ""))
        elif self.line is not None:
            where.append(f"line {self.line}")
        if self.record is not None:
            where.append(f"record {self.record}")
        if self.path is not None:
            where.append(f"path {shorten(self.path, 200) or '<root>'}")
        reason = shorten(self.reason, 1000)
        return f"{', '.join(where)}: {reason}" if where else reason

    def located(
        self, *, file: str | None = None, line: int | None = None, record: int | None = None, path: str | None = None
    ) -> "RecordError":
        """A copy of this error with missing location parts filled in (same class)."""
        err = type(self).__new__(type(self))
        RecordError.__init__(
            err,
            self.reason,
            file=self.file if self.file is not None else file,
            line=self.line if self.line is not None else line,
            record=self.record if self.record is not None else record,
            path=self.path if self.path is not None else path,
        )
        return err


class MalformedJSON(RecordError):
    """Text that is not a strict JSON object (bad syntax, NaN/Infinity literal, duplicate key...)."""


class PathSyntaxError(RecordError):
    """A JSON path string (a mask, a field) that cannot be parsed."""


class VocabularyError(RecordError):
    """A key, string or field that the vocabulary has never seen."""


class ValueOutOfRange(RecordError):
    """A number outside the exact range of a number encoding or normalizer."""


class DatasetError(ScinumError):
    """A dataset directory that is missing, incomplete or built with other parameters."""


class CheckpointError(ScinumError):
    """A checkpoint file that is truncated, foreign or inconsistent."""


class ConfigError(ScinumError, ValueError):
    """A training configuration that cannot work; the message says what to change."""


class TrainingError(ScinumError):
    """A training run that cannot go on: ranks out of step, a collective that timed out."""


class ResultsError(ScinumError):
    """A results directory that is missing, incomplete or malformed; names the file."""


class RecipeError(ScinumError):
    """A recipe that cannot run as asked (unknown preset or model, failed build, results that
    cannot be published); the message says what to change."""


class ConfigKeyError(ConfigError, KeyError):
    """A config key the schema does not have; the message lists the keys there are."""

    def __str__(self) -> str:  # KeyError would quote the message
        return str(self.args[0]) if self.args else ""
