@agent
Feature: A model strategizes and executes agent plans
  As an operator
  I want a model to turn a goal in plain words into a plan and carry it out through the sandbox tools
  So that I supervise the agent instead of writing every tool call myself

  Background:
    Given a scripted model server on 127.0.0.1
    And a project with a README

  Scenario: Strategize by the model proposes a tree, reading the project only
    Given an agent plan whose definition of done is "NOTES.md says hello"
    And a model that writes "NOTES.md" with "hello"
    When the plan runs
    Then the decision tree has the step "Write NOTES.md" with its rationale and acceptance check
    And during strategize the model called only read-only tools
    And the model was offered the tools file_read, file_list, file_search and propose_plan to strategize

  Scenario: Execute by the model writes files through the sandbox tools
    Given an agent plan whose definition of done is "NOTES.md says hello"
    And a model that writes "NOTES.md" with "hello"
    When the plan runs
    Then the plan waits in phase apply
    And the changeset creates "NOTES.md" with "hello"
    And the tool invocations of the step were file.write then file.read
    And the model was offered the 8 sandbox tools and finish_step to execute
    And the events include model_output and model_usage
    And the plan's usage counts the tokens of strategize and of the step
    And the step's summary is "Wrote NOTES.md and read it back."

  Scenario: An invalid proposal goes back to the model, which then proposes a valid tree
    Given an agent plan whose definition of done is "NOTES.md says hello"
    And a model that first proposes 2 invalid trees, then writes "NOTES.md" with "hello"
    When the plan runs
    Then the plan waits in phase apply
    And the model was told why its proposal was invalid 2 times

  Scenario: A proposal that stays invalid fails with category model_output
    Given an agent plan whose definition of done is "NOTES.md says hello"
    And a model that only proposes invalid trees
    When the plan runs
    Then the plan is errored with category "model_output"
    And the model was asked 4 times

  Scenario: A step that uses up its turns fails with category budget
    Given an agent plan with at most 3 turns per step whose definition of done is "NOTES.md says hello"
    And a model that proposes "Write NOTES.md" and then only lists files
    When the plan runs
    Then the plan is errored with category "budget"
    And the next command is "agents plan correct"

  Scenario: Under a careful profile, a step out of turns pauses and asks; given more, it finishes in the same conversation
    Given an agent plan under the "{ base: trusted, autoRetryTransient: 0 }" profile with at most 3 turns per step
    And a model that proposes "Write NOTES.md", lists files 4 times, then writes it with "hello"
    When the plan runs
    And I approve the pending approval
    Then the plan is paused, waiting for approval
    And the pending approval asks for 3 more turns for the step "Write NOTES.md"
    When I approve the pending approval
    Then the plan waits in phase apply
    And the changeset creates "NOTES.md" with "hello"
    And the step's conversation went on: its last request carries all 5 tool results

  Scenario: Under a careful profile, a plan that reaches its cost budget pauses and asks; given more, it finishes in the same conversation
    Given a price of 10000 per million output tokens
    And an agent plan under the "{ base: trusted, autoRetryTransient: 0 }" profile that may cost $1.00
    And a model that proposes "Write NOTES.md", lists files 4 times, then writes it with "hello"
    When the plan runs
    And I approve the pending approval
    Then the plan is paused, waiting for approval
    And the pending approval asks for $1.00 more for the plan, which has cost $1.00
    When I approve the pending approval
    Then the plan waits in phase apply
    And the changeset creates "NOTES.md" with "hello"
    And the step's conversation went on: its last request carries all 5 tool results

  Scenario: A step that uses up its output tokens fails with category budget
    Given an agent plan with at most 100 output tokens per step whose definition of done is "NOTES.md says hello"
    And a model that proposes "Write NOTES.md" and then only lists files
    When the plan runs
    Then the plan is errored with category "budget"
    And the plan's error names "output tokens"

  Scenario: Correct runs the failed step again with the failure and the operator's note
    Given an agent plan with at most 3 turns per step whose definition of done is "NOTES.md says hello"
    And a model that proposes "Write NOTES.md" and then only lists files, unless told a note
    When the plan runs
    And I ask the agent to correct the step with the note "write the file at once"
    Then the plan waits in phase apply
    And the changeset creates "NOTES.md" with "hello"
    And the model's last prompt for the step names the failure and the note "write the file at once"
    And the step has an error_recovery decision with action correct

  Scenario: Replan without a file: the model proposes the steps not done again
    Given an agent plan with at most 3 turns per step whose definition of done is "a greeting file exists"
    And a model that fails "Write NOTES.md", and proposes "HELLO.md" when asked for new steps
    When the plan runs
    And I replan the plan by the model
    And the plan runs
    Then the plan waits in phase apply
    And the step "Write NOTES.md" is skipped
    And the changeset creates "HELLO.md" with "hello"
    And the model's last strategize prompt carries the reason "the operator asked for new steps"

  Scenario: Under a careful profile, the steps the model proposes again wait for approval again
    Given an agent plan under the "{ base: trusted, autoRetryTransient: 0 }" profile with at most 3 turns per step
    And a model that fails "Write NOTES.md", and proposes "HELLO.md" when asked for new steps
    When the plan runs
    And I approve the pending approval
    Then the plan is paused, waiting for approval
    And the pending approval asks for 3 more turns for the step "Write NOTES.md"
    When I reject the pending approval with the reason "enough turns"
    Then the plan is errored with category "budget"
    And the plan's error names "enough turns"
    When I replan the plan by the model
    And the plan runs
    Then the plan is paused, waiting for approval
    And the pending approval is of kind plan and lists the step "Write HELLO.md"

  Scenario: A path outside the sandbox is refused by the tools, as for a scripted call
    Given an agent plan whose definition of done is "NOTES.md says hello"
    And a model that tries to write "../escape.txt"
    When the plan runs
    Then the plan is errored with category "policy"
    And the plan's error names "escapes the sandbox"
    And no file "escape.txt" exists beside the sandbox

  Scenario Outline: A call the rules refuse fails the step, as a scripted call would
    Given an agent plan under the "<profile>" profile whose definition of done is "NOTES.md says hello"
    And the project protects "NOTES.md"
    And a model that calls <tool> with <args>
    When the plan runs
    Then the plan is errored with category "<category>"

    Examples:
      | profile                                        | tool       | args                                          | category  |
      | { base: full-auto, autoRetryTransient: 0 }     | file_write | {"path": "NOTES.md", "content": "hello"}      | invariant |
      | { base: full-auto, allowShell: false, autoRetryTransient: 0 } | shell_run  | {"command": "echo hello > OTHER.md"}          | policy    |

  Scenario: Later steps are shown the summaries of earlier ones
    Given an agent plan whose definition of done is "A.md and B.md exist"
    And a model that writes "A.md" with "a" and "B.md" with "b"
    When the plan runs
    Then the plan waits in phase apply
    And the model's prompt for "Write B.md" says "Write A.md: Wrote A.md and read it back."

  Scenario: A tool failure goes back to the model, which then carries on
    Given an agent plan whose definition of done is "NOTES.md says hello"
    And a model that first reads the missing "TODO.md", then writes "NOTES.md" with "hello"
    When the plan runs
    Then the plan waits in phase apply
    And the model was told that "TODO.md" does not exist

  Scenario Outline: Transient provider errors are retried with the profile's limit
    Given an agent plan whose definition of done is "NOTES.md says hello"
    And a model that writes "NOTES.md" with "hello"
    And the model server first answers <failure>
    When the plan runs
    Then the plan waits in phase apply
    And one automatic retry was scheduled after at least <delay> ms

    Examples:
      | failure                       | delay |
      | 429 with Retry-After 3        | 3000  |
      | 500                           | 0     |
      | with a stream that stalls     | 0     |

  Scenario: A refused connection is transient and retried until the profile's limit
    Given an agent plan whose definition of done is "NOTES.md says hello"
    And the model server is not listening
    When the plan runs
    Then the plan is errored with category "transient"
    And 3 automatic retries were scheduled

  Scenario Outline: Permanent provider errors are not retried and say what to change
    Given an agent plan whose definition of done is "NOTES.md says hello"
    And a model that writes "NOTES.md" with "hello"
    And the model server first answers <failure>
    When the plan runs
    Then the plan is errored with category "<category>"
    And no automatic retry was scheduled
    And the plan's hint mentions "<hint>"

    Examples:
      | failure       | category     | hint            |
      | 401           | auth         | AGENTS_API_KEY  |
      | 403           | auth         | agents config   |
      | unknown model | model_config | scripted-model  |

  Scenario: An agent plan with no model configured is refused
    Given no model is configured
    When I create an agent plan
    Then it is refused with a message naming "AGENTS_MODEL"

  Scenario: Under a careful profile the proposed tree waits for the operator's approval
    Given an agent plan under the "trusted" profile whose definition of done is "NOTES.md says hello"
    And a model that writes "NOTES.md" with "hello"
    When the plan runs
    Then the plan is paused, waiting for approval
    And the pending approval is of kind plan and lists the step "Write NOTES.md"
    And nothing was executed yet
    When I approve the pending approval
    Then the plan waits in phase apply
    And the tree records the approval of the plan

  Scenario: Rejecting the proposed tree sends the reason back to the model for a new proposal
    Given an agent plan under the "trusted" profile whose definition of done is "NOTES.md says hello"
    And a model that writes "NOTES.md" with "hello", or "README.md" once told to
    When the plan runs
    And I reject the pending approval with the reason "edit README.md instead"
    Then the plan is paused, waiting for approval
    And the model's last strategize prompt carries the reason "edit README.md instead"
    And the pending approval is of kind plan and lists the step "Write README.md"
    And the step "Write NOTES.md" is skipped

  Scenario: A shell call of the model waits for approval under supervised, and the step goes on where it stopped
    Given an agent plan under the "supervised" profile whose definition of done is "out.txt holds the greeting"
    And a model that runs "echo hello > out.txt" and then finishes
    When the plan runs
    And I approve the pending approval
    Then the plan is paused, waiting for approval
    And the pending approval is for shell.run "echo hello > out.txt"
    When I approve the pending approval
    Then the plan waits in phase apply
    And the changeset creates "out.txt" with "hello\n"
    And the model was given the step's prompt once
