@plan @strategize
Feature: Strategize turns a definition of done into a decision tree
  As an operator
  I want the strategize phase to read a plan's definition of done and plan its steps
  So that I can see what will happen before anything changes

  Scenario: A markdown bullet list becomes one decision per bullet under a root decision
    Given a plan whose definition of done is:
      """
      - Create the licence file
      - Mention it in the README
      * Review the result
      """
    When the plan is strategized
    Then the decision tree has a prompt_definition root
    And the root has 3 strategy_choice children in order:
      | Create the licence file  |
      | Mention it in the README |
      | Review the result        |
    And every decision id is a ULID
    And the plan is queued in phase execute with the decision root recorded

  Scenario: Steps keep their scripted tool calls
    Given a plan with a step "Write the licence" that calls file.write on "LICENSE"
    When the plan is strategized
    Then the decision "Write the licence" plans a file.write call with path "LICENSE"

  Scenario: Strategize is read-only
    Given a plan with a step "Write the licence" that calls file.write on "LICENSE"
    When the plan is strategized
    Then no tool was invoked and no changeset exists

  Scenario: Invariants are propagated as stub records
    Given a plan with the invariant "Never touch tests/"
    When the plan is strategized
    Then the invariant records include an accepted action invariant "Never touch tests/"
