"""Protobuf schema of the program IR (Paddle ProgramDesc wire format)."""
