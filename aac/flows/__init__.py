"""aac.flows"""
