"""Tests of the Raw-RAG and hybrid package."""
