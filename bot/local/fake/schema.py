"""Requests checked against Discord's own OpenAPI description, the way real Discord answers 400.

Every route: the path must be documented for its method; a JSON body (or a multipart body's
``payload_json`` part) must match the operation's schema (an interaction callback's, by its type); a route
that needs a body must get one; documented query parameters must parse as their type.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import quote

if TYPE_CHECKING:  # jsonschema is a test dependency: the local table imports this module without it
    from jsonschema import Draft202012Validator
    from referencing import Registry

# Discord's own OpenAPI description, beside the repository (../shared) where the tests run; the local
# table runs without it (FakeDiscord(validate=False)).
OPENAPI_PATH = Path(
    os.environ.get(
        "DISCORD_OPENAPI",
        Path(__file__).resolve().parents[4] / "shared" / "discord-api" / "openapi.json",
    )
)
BASE_URI = "https://discord.test/openapi.json"
MAX_REMEMBERED = 4096  # valid bodies remembered (then forgotten all at once)


CALLBACK = "/interactions/{interaction_id}/{interaction_token}/callback"
CALLBACK_SCHEMAS = {
    1: "PongInteractionCallbackRequest",
    4: "CreateMessageInteractionCallbackRequest",
    5: "CreateMessageInteractionCallbackRequest",
    6: "UpdateMessageInteractionCallbackRequest",
    7: "UpdateMessageInteractionCallbackRequest",
    8: "ApplicationCommandAutocompleteCallbackRequest",
    9: "ModalInteractionCallbackRequest",
}


@dataclass(frozen=True)
class Violation:
    """One request real Discord would refuse."""

    method: str
    path: str
    problem: str

    def __str__(self) -> str:
        return f"{self.method} {self.path}: {self.problem}"


class OpenAPIValidator:
    """Finds the path template of a request and validates its JSON body against the documented schema."""

    def __init__(self) -> None:
        from referencing import Registry, Resource
        from referencing.jsonschema import DRAFT202012

        self.document: dict[str, Any] = json.loads(OPENAPI_PATH.read_text())
        # Discord parses a snowflake sent as a JSON integer as well as a string (discord.py sends
        # recipient_id as an int); the spec only documents the string form.
        snowflake = self.document["components"]["schemas"]["SnowflakeType"]
        self.document["components"]["schemas"]["SnowflakeType"] = {
            "anyOf": [snowflake, {"type": "integer", "minimum": 0}]
        }
        resource = Resource.from_contents(self.document, default_specification=DRAFT202012)
        self.registry: Registry = Registry().with_resource(BASE_URI, resource)
        self._templates: list[tuple[re.Pattern[str], str]] = []
        for template in self.document["paths"]:
            regex = re.sub(r"\\\{[a-z_]+\\\}", r"[^/]+", re.escape(template))
            self._templates.append((re.compile(f"^{regex}$"), template))
        # literal segments win over placeholders (@original over {message_id}, @me over {user_id})
        self._templates.sort(key=lambda item: item[1].count("{"))
        self._valid: set[tuple[int, str]] = set()  # (validator, body as canonical JSON) found valid

    def template_for(self, path: str) -> str | None:
        """The documented path template matching ``path`` (without /api/v10), or None."""
        for regex, template in self._templates:
            if regex.match(path):
                return template
        return None

    @cache  # noqa: B019 - one validator per documented operation, the instance lives for the session
    def _validator(self, template: str, method: str) -> Draft202012Validator | None:
        from jsonschema import Draft202012Validator

        operation = self.document["paths"][template].get(method.lower())
        if operation is None or "requestBody" not in operation:
            return None
        pointer = "/".join(
            [
                "",
                "paths",
                _escape(template),
                method.lower(),
                "requestBody",
                "content",
                "application~1json",
                "schema",
            ]
        )
        schema = {"$ref": f"{BASE_URI}#{quote(pointer, safe='/~@')}"}
        return Draft202012Validator(schema, registry=self.registry)

    @cache  # noqa: B019
    def _component(self, name: str) -> Draft202012Validator:
        from jsonschema import Draft202012Validator

        return Draft202012Validator(
            {"$ref": f"{BASE_URI}#/components/schemas/{name}"}, registry=self.registry
        )

    @cache  # noqa: B019
    def _query_parameters(self, template: str, method: str) -> dict[str, tuple[str, Draft202012Validator]]:
        """Each documented query parameter: the JSON type its text is read as, and its schema's validator."""
        from jsonschema import Draft202012Validator

        operation = self.document["paths"][template][method.lower()]
        out = {}
        for parameter in operation.get("parameters") or []:
            if parameter.get("in") == "query":
                schema = parameter.get("schema") or {}
                kind = str(schema.get("type", "string"))
                if "$ref" in schema:  # a component (a snowflake): resolved in the document
                    schema = {"$ref": BASE_URI + schema["$ref"]}
                validator = Draft202012Validator(schema, registry=self.registry)
                out[parameter["name"]] = (kind, validator)
        return out

    def check(
        self,
        method: str,
        path: str,
        body: Any,
        *,
        query: Mapping[str, str] | None = None,
        files: bool = False,
    ) -> list[Violation]:
        """Every reason real Discord would refuse this request (empty when it is fine).

        ``body`` is the JSON body, or the ``payload_json`` part of a multipart body (None: no body);
        ``query`` the query string (documented parameters must parse as their type; others are ignored,
        as Discord ignores them); ``files``: the request uploaded files (a body may then be left out).
        """
        from jsonschema.exceptions import best_match

        template = self.template_for(path)
        if template is None:
            return [Violation(method, path, "no such route in Discord's API")]
        operation = self.document["paths"][template].get(method.lower())
        if operation is None:
            return [Violation(method, path, f"{method} is not documented for {template}")]
        problems = self._check_query(method, path, template, query) if query else []
        validator = self._validator(template, method)
        if template == CALLBACK and isinstance(body, dict) and body.get("type") in CALLBACK_SCHEMAS:
            validator = self._component(CALLBACK_SCHEMAS[body["type"]])
        if validator is None:
            if body not in (None, b"", ""):
                problems.append(Violation(method, path, "this route takes no body"))
            return problems
        if body is None:
            if operation["requestBody"].get("required") and not files:
                problems.append(Violation(method, path, "this route needs a JSON body"))
            return problems
        # the same body against the same schema gets the same answer: every test's bot sends the same
        # command tree at start-up, whose validation was most of a test's set-up
        key = (id(validator), json.dumps(body, sort_keys=True, separators=(",", ":")))
        if key in self._valid:
            return problems
        errors = list(validator.iter_errors(body))
        if not errors:
            if len(self._valid) >= MAX_REMEMBERED:
                self._valid.clear()
            self._valid.add(key)
            return problems
        error = best_match(errors)
        while error.context:  # an anyOf/oneOf: say what is wrong inside the closest branch
            error = best_match(error.context)
        where = "/".join(str(p) for p in error.absolute_path) or "(body)"
        value = repr(error.validator_value)[:120]
        problem = f"{where}: fails {error.validator}={value} ({repr(error.instance)[:120]})"
        return [*problems, Violation(method, path, problem)]

    def _check_query(
        self, method: str, path: str, template: str, query: Mapping[str, str]
    ) -> list[Violation]:
        documented = self._query_parameters(template, method)
        problems = []
        for name, text in query.items():
            if name not in documented:
                continue
            kind, validator = documented[name]
            value = _read_query_value(kind, text)
            if value is None or not validator.is_valid(value):
                problems.append(Violation(method, path, f"query {name}={text!r} is not a valid {kind}"))
        return problems


def _read_query_value(kind: str, text: str) -> Any:
    """A query parameter's text as Discord reads it for its type (None: it cannot be read so)."""
    if kind == "boolean":
        return {"true": True, "1": True, "false": False, "0": False}.get(text.lower())
    if kind == "integer":
        return int(text) if re.fullmatch(r"-?\d+", text) else None
    return text


def _escape(segment: str) -> str:
    return segment.replace("~", "~0").replace("/", "~1")


@cache
def validator() -> OpenAPIValidator:
    """One shared validator (building it reads a large document)."""
    return OpenAPIValidator()
