"""The protocol's published files (in ``protocol/``): JSON Schemas generated from the message
and record types, and the example transcript of a real match."""
