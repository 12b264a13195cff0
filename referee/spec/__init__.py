"""The protocol's published files (in ``protocol/``): JSON Schemas generated from the message
and record types, the example transcript of a real match, and the conformance vectors made
from the engine, with the interface and the check that hold another engine to them."""
