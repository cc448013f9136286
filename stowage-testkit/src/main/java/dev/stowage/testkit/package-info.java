package dev.stowage.testkit;
