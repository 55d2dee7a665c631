"""aac.operators"""
