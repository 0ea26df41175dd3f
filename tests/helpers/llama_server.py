"""llama.cpp's OpenAI-compatible server (`python -m llama_cpp.server ARGS`) with the model's weights in
plain CPU buffers, as the product loads them (`llm.llama.plain_buffers`): run as a script with the
server's arguments."""

from __future__ import annotations

import runpy

import llama_cpp

from refind_desktop.llm.llama import plain_buffers

if __name__ == "__main__":
    with plain_buffers(llama_cpp):  # the server loads its model at start, then serves until stopped
        runpy.run_module("llama_cpp.server", run_name="__main__", alter_sys=True)
