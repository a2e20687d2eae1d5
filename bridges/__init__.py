"""Bridges to the game-AI ecosystem: our five games as OpenSpiel games and PettingZoo
environments, and OpenSpiel's bots as Arbiter agents (docs/ecosystem.md).

Outside the core: installed with the `openspiel` extra, it may import games, agents, numpy,
pyspiel and pettingzoo, and nothing in the core imports it. The agents reach the registry
through the `arbiter.agents` entry point (`plugin.py`), so they appear only where the extra is.
"""
