"""Seed 000 (".NET 6": JSON), ported to Python's json: serialize and parse the seed's BlogPost
object. There is no source generator; the "fast path" is a pre-built, reused encoder."""
import json

import perflab

META = {"seed": "000", "section": "JSON"}
WITHOUT_META = {**META, "fidelity": "partial: json.dumps to a str with a default= hook; the seed "
                "serializes by reflection into a reused Utf8JsonWriter on Stream.Null"}
WITH_META = {**META, "fidelity": "different: no source generator; a reused encoder on a dict built "
             "by hand, not the serializer's fast path"}


class BlogPost:
    __slots__ = ("Title", "Author", "PublicationYear")

    def __init__(self, Title, Author, PublicationYear):
        self.Title, self.Author, self.PublicationYear = Title, Author, PublicationYear

    def to_dict(self):
        return {"Title": self.Title, "Author": self.Author, "PublicationYear": self.PublicationYear}


_POST = BlogPost(".NET 6 Performance", "Me", 2021)
_ENCODER = json.JSONEncoder(separators=(",", ":"))
_TEXT = json.dumps(_POST.to_dict())


@perflab.benchmark(name="JsonSerializerWithoutFastPath", categories=["json", "quick"], meta=WITHOUT_META)
def json_serializer_without_fast_path():
    """json.dumps with a default= hook discovering the object's fields (reflection-like)."""
    return json.dumps(_POST, default=lambda o: {k: getattr(o, k) for k in o.__slots__})


@perflab.benchmark(name="JsonSerializerWithFastPath", categories=["json"], meta=WITH_META)
def json_serializer_with_fast_path():
    """A reused compact encoder on a dict built by hand-written code (the source generator's role)."""
    return _ENCODER.encode(_POST.to_dict())


@perflab.benchmark(name="Deserialize", categories=["json"], meta={"extra": True, "related": "000 · JSON"})
def deserialize():
    d = json.loads(_TEXT)
    return BlogPost(d["Title"], d["Author"], d["PublicationYear"])
