# SPDX-License-Identifier: MIT
"""A JSON Schema validator for the subset of keywords uabench.schema.json
uses, so the tests need nothing beyond python3 (Debian's python3-jsonschema
is not always installed, and PyPI may be out of reach).  A schema using any
other keyword is refused rather than half-checked."""

import math

ANNOTATIONS = {"$schema", "$id", "$defs", "title", "description"}
KEYWORDS = {"$ref", "type", "enum", "const", "properties", "required",
            "additionalProperties", "items", "minItems", "minimum",
            "oneOf", "allOf"}


def _is_type(v, t):
    if t == "null":
        return v is None
    if t == "boolean":
        return isinstance(v, bool)
    if t == "integer":
        if isinstance(v, bool):
            return False
        return isinstance(v, int) or (isinstance(v, float) and
                                      math.isfinite(v) and v.is_integer())
    if t == "number":
        return isinstance(v, (int, float)) and not isinstance(v, bool)
    if t == "string":
        return isinstance(v, str)
    if t == "array":
        return isinstance(v, list)
    if t == "object":
        return isinstance(v, dict)
    raise ValueError(f"unknown type {t!r} in schema")


def _equal(a, b):
    # JSON equality: 1 == 1.0 but true != 1.
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    return a == b


def _resolve(root, ref):
    if not ref.startswith("#/"):
        raise ValueError(f"only local $ref is supported: {ref!r}")
    node = root
    for part in ref[2:].split("/"):
        part = part.replace("~1", "/").replace("~0", "~")
        node = node[part]
    return node


class Validator:
    def __init__(self, schema):
        self.root = schema
        self._check_keywords(schema, "#")

    def _check_keywords(self, s, where):
        if isinstance(s, bool):
            return
        if not isinstance(s, dict):
            raise ValueError(f"{where}: a schema must be an object")
        for k, v in s.items():
            if k not in KEYWORDS | ANNOTATIONS:
                raise ValueError(f"{where}: keyword {k!r} is outside the "
                                 "supported subset")
            if k == "$defs" or k == "properties":
                for name, sub in v.items():
                    self._check_keywords(sub, f"{where}/{k}/{name}")
            elif k in ("items", "additionalProperties"):
                self._check_keywords(v, f"{where}/{k}")
            elif k in ("oneOf", "allOf"):
                for i, sub in enumerate(v):
                    self._check_keywords(sub, f"{where}/{k}/{i}")

    def errors(self, inst, schema=None, path="$"):
        s = self.root if schema is None else schema
        if s is True:
            return []
        if s is False:
            return [f"{path}: nothing is allowed here"]
        errs = []
        if "$ref" in s:
            errs += self.errors(inst, _resolve(self.root, s["$ref"]), path)
        if "type" in s:
            types = s["type"] if isinstance(s["type"], list) else [s["type"]]
            if not any(_is_type(inst, t) for t in types):
                return errs + [f"{path}: {inst!r:.60} is not of type "
                               f"{'/'.join(types)}"]
        if "enum" in s and not any(_equal(inst, e) for e in s["enum"]):
            errs.append(f"{path}: {inst!r:.60} is not one of {s['enum']}")
        if "const" in s and not _equal(inst, s["const"]):
            errs.append(f"{path}: {inst!r:.60} is not {s['const']!r}")
        if "minimum" in s and _is_type(inst, "number") and \
                inst < s["minimum"]:
            errs.append(f"{path}: {inst} < minimum {s['minimum']}")
        if isinstance(inst, dict):
            errs += self._object(inst, s, path)
        if isinstance(inst, list):
            if "minItems" in s and len(inst) < s["minItems"]:
                errs.append(f"{path}: fewer than {s['minItems']} items")
            if "items" in s:
                for i, v in enumerate(inst):
                    errs += self.errors(v, s["items"], f"{path}[{i}]")
        for sub in s.get("allOf", []):
            errs += self.errors(inst, sub, path)
        if "oneOf" in s:
            ok = [i for i, sub in enumerate(s["oneOf"])
                  if not self.errors(inst, sub, path)]
            if len(ok) != 1:
                detail = ""
                if not ok:
                    # The branch with the fewest errors is the likely intent.
                    best = min((self.errors(inst, sub, path)
                                for sub in s["oneOf"]), key=len)
                    detail = ": " + "; ".join(best[:3])
                errs.append(f"{path}: matches {len(ok)} of the oneOf "
                            f"branches, not exactly 1{detail}")
        return errs

    def _object(self, inst, s, path):
        errs = []
        props = s.get("properties", {})
        for k in s.get("required", []):
            if k not in inst:
                errs.append(f"{path}: missing required property {k!r}")
        for k, v in inst.items():
            if k in props:
                errs += self.errors(v, props[k], f"{path}.{k}")
            elif "additionalProperties" in s:
                errs += self.errors(v, s["additionalProperties"],
                                    f"{path}.{k}")
        return errs


def validate(instance, schema):
    """Return the list of errors; empty when @instance is valid."""
    return Validator(schema).errors(instance)
